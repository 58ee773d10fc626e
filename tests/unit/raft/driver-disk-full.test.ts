/**
 * @module tests/unit/raft/driver-disk-full
 * A replica whose disk is full must stay up (it used to exit with "database or disk is
 * full") and must stop acknowledging: an entry it could not persist never counts toward a
 * quorum through it. Once there is room it writes what it held and catches up by itself.
 * Three in-process replicas over SqliteStorage; the "full disk" is SQLite's max_page_count.
 * On simulated time (driver-world.ts: SEED=n replays a run; the write retry is 1 s of it).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRng } from "../../../src/lib/rng.ts";
import { type DriverOptions, type RaftDriver, ProposalError, createRaftDriver } from "../../../src/raft/driver.ts";
import { NO_SPACE_MESSAGE } from "../../../src/lib/store-full.ts";
import { SqliteStorage } from "../../../src/raft/storage-sqlite.ts";
import type { Entry, Message } from "../../../src/raft/core/index.ts";
import { type World, createWorld } from "./driver-world.ts";

interface Replica {
  id: number;
  driver: RaftDriver;
  applied: string[];
  storage: SqliteStorage;
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function makeCluster(w: World, ids: number[], options: Partial<DriverOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "spur-raftfull-"));
  dirs.push(dir);
  const replicas = new Map<number, Replica>();
  const cutOff = new Set<number>();
  const warnings: string[] = [];
  const deliver = (msgs: Message[]) => {
    for (const m of msgs) {
      if (cutOff.has(m.to) || cutOff.has(m.from)) continue;
      w.clock.setTimeout(() => {
        if (!cutOff.has(m.to) && !cutOff.has(m.from)) replicas.get(m.to)?.driver.receive([m]);
      }, w.rng.int(1, 3));
    }
  };
  for (const id of ids) {
    const storage = SqliteStorage.bootstrap(join(dir, `r${id}.sqlite`), ids);
    const r: Replica = { id, storage, applied: [], driver: undefined as unknown as RaftDriver };
    r.driver = createRaftDriver(
      {
        id, storage, rng: createRng(w.seed * 31 + id), send: deliver, clock: w.clock,
        applyCommand: (c) => {
          r.applied.push(c as string);
          return r.applied.length;
        },
        restore: () => undefined,
        takeSnapshot: () => new Uint8Array(0),
        onServing: () => undefined,
        logger: { info: () => undefined, warn: (o) => warnings.push(`${id}: ${(o as { message: string }).message}`) },
      },
      { tickMs: 5, proposalTimeoutMs: 400, snapshotEveryEntries: 1_000_000, ...options },
    );
    replicas.set(id, r);
  }
  for (const r of replicas.values()) r.driver.start();
  const servingNow = () => [...replicas.values()].find((r) => r.driver.isServing());
  const serving = async (): Promise<Replica> => {
    await w.until(() => servingNow() !== undefined, 5000);
    return servingNow() as Replica;
  };
  const stopAll = () => {
    for (const r of replicas.values()) r.driver.stop();
    for (const r of replicas.values()) r.storage.close();
  };
  return { replicas, serving, stopAll, cutOff, warnings };
}

const payload = (i: number) => `${i}:${"x".repeat(3000)}`;
const storedIndexes = (s: SqliteStorage): number[] => {
  const r = s.entries(s.firstIndex(), s.lastIndex() + 1, Number.MAX_SAFE_INTEGER);
  return r.ok ? r.value.map((e: Entry) => e.index) : [];
};

describe("raft driver on a full disk", () => {
  it("a full follower stays up, acknowledges nothing it did not store, and catches up when there is room", async () => {
    const w = createWorld(31);
    const c = makeCluster(w, [1, 2, 3]);
    try {
      const leader = await c.serving();
      const [full, other] = [...c.replicas.values()].filter((r) => r !== leader) as [Replica, Replica];
      await w.settle(leader.driver.propose(payload(0)));
      full.storage.setMaxPageCount(1); // no page beyond what the file has now
      // The leader and the other follower are a majority: work goes on.
      for (let i = 1; i <= 5; i++) await w.settle(leader.driver.propose(payload(i)));
      await w.runFor(50);
      expect(full.applied.length).toBeLessThan(leader.applied.length);
      expect(c.warnings.filter((w) => w.startsWith(`${full.id}:`) && /no space/.test(w))).toHaveLength(1); // logged once
      // Without the other follower, the full one must not make a quorum: nothing commits.
      c.cutOff.add(other.id);
      await expect(w.settle(leader.driver.propose(payload(6)), 20_000)).rejects.toBeInstanceOf(ProposalError);
      expect(leader.applied).toHaveLength(6);
      // Room again: the full follower writes what it held, acknowledges, and the cluster moves on.
      full.storage.setMaxPageCount(1_000_000);
      const next = await c.serving();
      await w.settle(next.driver.propose(payload(7)));
      await w.until(() => full.applied.length >= next.applied.length, 3000);
      expect(full.applied).toEqual(next.applied);
      expect(full.applied.map((p) => Number(p.split(":")[0]))).toEqual(expect.arrayContaining([0, 1, 2, 3, 4, 5, 7]));
      // The stored log has no gap.
      const idx = storedIndexes(full.storage);
      expect(idx).toEqual(Array.from({ length: idx.length }, (_, i) => (idx[0] as number) + i));
    } finally {
      c.stopAll();
    }
  });

  it("a leader whose disk is full keeps a bounded backlog and refuses past it with ENOSPC's answer; room again, it commits what it held", async () => {
    const w = createWorld(32);
    const c = makeCluster(w, [1], { backlogEntriesMax: 20, backlogBytesMax: 1_000_000, proposalTimeoutMs: 5_000 });
    try {
      const leader = await c.serving();
      await w.settle(leader.driver.propose(payload(0)));
      leader.storage.setMaxPageCount(1);
      const held: Promise<unknown>[] = [];
      for (let i = 1; i <= 20; i++) held.push(leader.driver.propose(payload(i)));
      await w.runFor(30); // the driver tried to write them and the disk refused
      // Entry 21 is one too many: refused at once, never in the log (a retry cannot commit twice).
      const refused = await leader.driver.propose(payload(21)).then(() => undefined, (e: unknown) => e);
      expect(refused).toBeInstanceOf(ProposalError);
      expect([(refused as ProposalError).reason, (refused as ProposalError).message]).toEqual(["no-space", NO_SPACE_MESSAGE]);
      const lastBefore = leader.driver.status().lastIndex;
      for (let i = 0; i < 50; i++) await w.settle(leader.driver.propose(payload(100 + i)).catch(() => undefined));
      expect(leader.driver.status().lastIndex).toBe(lastBefore); // nothing more in memory
      leader.storage.setMaxPageCount(1_000_000);
      await w.settle(Promise.all(held)); // within the next write retry (1 s of simulated time)
      expect(leader.applied.map((p) => Number(p.split(":")[0]))).toEqual(Array.from({ length: 21 }, (_, i) => i));
      await w.settle(leader.driver.propose(payload(22))); // the bound is counted from the next refusal again
    } finally {
      c.stopAll();
    }
  });

  it("the backlog bound counts bytes too", async () => {
    const w = createWorld(33);
    const c = makeCluster(w, [1], { backlogEntriesMax: 10_000, backlogBytesMax: 4 * 3_100, proposalTimeoutMs: 5_000 });
    try {
      const leader = await c.serving();
      await w.settle(leader.driver.propose(payload(0)));
      leader.storage.setMaxPageCount(1);
      const held = [1, 2, 3, 4].map((i) => leader.driver.propose(payload(i)));
      await w.runFor(30);
      await expect(leader.driver.propose(payload(5))).rejects.toMatchObject({ reason: "no-space" });
      leader.storage.setMaxPageCount(1_000_000);
      await w.settle(Promise.all(held));
      expect(leader.applied).toHaveLength(5);
    } finally {
      c.stopAll();
    }
  });

  it("a storage transaction that fails leaves the store's view as it was", () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-raftfull-"));
    dirs.push(dir);
    const s = SqliteStorage.bootstrap(join(dir, "s.sqlite"), [1]);
    const last = s.lastIndex();
    const hard = s.hardStateNow();
    s.setMaxPageCount(1);
    const big = (i: number): Entry => ({ index: last + i, term: hard.term, type: "normal", data: new TextEncoder().encode("y".repeat(8000)) });
    expect(() => s.atomically(() => {
      s.setHardState({ ...hard, term: hard.term + 1 });
      s.append([big(1), big(2), big(3)]);
    })).toThrow(/full/);
    expect(s.lastIndex()).toBe(last);
    expect(s.hardStateNow()).toEqual(hard);
    s.setMaxPageCount(1_000_000);
    s.atomically(() => s.append([big(1)]));
    expect(s.lastIndex()).toBe(last + 1);
    s.close();
  });
});
