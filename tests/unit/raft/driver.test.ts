/**
 * @module tests/unit/raft/driver
 * The async driver with three in-process replicas over an in-memory transport: proposals
 * resolve with the applied result on the serving leader only, a stopped leader is replaced,
 * nothing acknowledged is lost, and snapshots + compaction keep replicas equal.
 */
import { describe, expect, it } from "vitest";
import { createRng } from "../../../src/lib/rng.ts";
import { type RaftDriver, ProposalError, createRaftDriver } from "../../../src/raft/driver.ts";
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";
import type { Message } from "../../../src/raft/core/index.ts";

interface Replica {
  id: number;
  driver: RaftDriver;
  applied: number[];
  storage: MemoryStorage;
  logged: object[];
}

function makeCluster(ids: number[], snapshotEveryEntries = 1_000_000, asyncSnapshots = false) {
  const replicas = new Map<number, Replica>();
  const down = new Set<number>();
  const sent: Message[] = [];
  const deliver = (msgs: Message[]) => {
    sent.push(...msgs);
    for (const m of msgs) {
      if (down.has(m.to) || down.has(m.from)) continue;
      setTimeout(() => replicas.get(m.to)?.driver.receive([m]), 1);
    }
  };
  for (const id of ids) {
    const storage = MemoryStorage.bootstrap(ids);
    const r: Replica = { id, storage, applied: [], logged: [], driver: undefined as unknown as RaftDriver };
    r.driver = createRaftDriver(
      {
        id, storage, rng: createRng(id * 7), send: deliver,
        applyCommand: (c) => {
          r.applied.push(c as number);
          return r.applied.length;
        },
        restore: (snap) => {
          r.applied = JSON.parse(new TextDecoder().decode(snap.data)) as number[];
        },
        takeSnapshot: () => new TextEncoder().encode(JSON.stringify(r.applied)),
        // As the snapshot worker: the image of the state at the asked index, ready a little later.
        ...(asyncSnapshots
          ? {
              takeSnapshotAsync: () => {
                const image = new TextEncoder().encode(JSON.stringify(r.applied));
                return new Promise<{ image: Uint8Array; encodeMs: number }>((res) => setTimeout(() => res({ image, encodeMs: 0 }), 3));
              },
            }
          : {}),
        onServing: () => undefined,
        logger: { info: (o: object) => r.logged.push(o), warn: (o: object) => r.logged.push(o) },
      },
      { tickMs: 5, snapshotEveryEntries, trailingEntries: 5 },
    );
    replicas.set(id, r);
  }
  for (const r of replicas.values()) r.driver.start();
  const serving = async (): Promise<Replica> => {
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      const l = [...replicas.values()].find((r) => !down.has(r.id) && r.driver.isServing());
      if (l !== undefined) return l;
      await new Promise((res) => setTimeout(res, 5));
    }
    throw new Error("no serving leader");
  };
  const kill = (id: number) => {
    down.add(id);
    replicas.get(id)?.driver.stop();
  };
  const stopAll = () => {
    for (const r of replicas.values()) r.driver.stop();
  };
  const cut = (id: number) => down.add(id);
  const heal = (id: number) => down.delete(id);
  return { replicas, serving, kill, stopAll, cut, heal, sent };
}

describe("raft driver", () => {
  it("commits proposals on the leader, refuses them elsewhere, survives a leader stop", async () => {
    const c = makeCluster([1, 2, 3]);
    try {
      const leader = await c.serving();
      const results = await Promise.all([1, 2, 3, 4, 5].map((n) => leader.driver.propose(n)));
      expect(results).toEqual([1, 2, 3, 4, 5]);
      const follower = [...c.replicas.values()].find((r) => r !== leader) as Replica;
      await expect(follower.driver.propose(9)).rejects.toBeInstanceOf(ProposalError);
      c.kill(leader.id);
      const next = await c.serving();
      expect(next.id).not.toBe(leader.id);
      await next.driver.propose(6);
      expect(next.applied).toEqual([1, 2, 3, 4, 5, 6]); // nothing acknowledged was lost
    } finally {
      c.stopAll();
    }
  });

  it("group commit: proposals made together go to each follower as one append of consecutive entries", async () => {
    const c = makeCluster([1, 2, 3]);
    try {
      const leader = await c.serving();
      await leader.driver.propose(0);
      c.sent.length = 0;
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => leader.driver.propose(i + 1)));
      expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i + 2));
      const carrying = c.sent.filter((m) => m.from === leader.id && m.type === "app" && m.entries.length > 0);
      // One append per follower (a lost or late answer may add a re-send, never one per proposal).
      expect(carrying.length).toBeGreaterThanOrEqual(2);
      expect(carrying.length).toBeLessThanOrEqual(4);
      expect(carrying[0]?.entries.length).toBe(50);
    } finally {
      c.stopAll();
    }
  });

  it("snapshots and compacts the log while replicas stay equal", async () => {
    const c = makeCluster([1, 2, 3], 10);
    try {
      // A leader due for a snapshot hands leadership over first: always propose at the current one.
      for (let i = 0; i < 60; i++) {
        for (;;) {
          const leader = await c.serving();
          if (await leader.driver.propose(i).then(() => true, () => false)) break;
          await new Promise((r) => setTimeout(r, 2));
        }
      }
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline && [...c.replicas.values()].some((r) => r.applied.length < 60)) await new Promise((r) => setTimeout(r, 5));
      const first = [...c.replicas.values()][0] as Replica;
      for (const r of c.replicas.values()) {
        expect(r.applied).toEqual(first.applied);
        expect(r.storage.snapshot().meta.index).toBeGreaterThan(10);
        expect(r.storage.firstIndex()).toBeGreaterThan(1);
      }
      expect(first.applied).toEqual(Array.from({ length: 60 }, (_, i) => i));
    } finally {
      c.stopAll();
    }
  });

  it("with snapshots built off the thread, the leader keeps leading and replicas snapshot at indices of their own", async () => {
    const c = makeCluster([1, 2, 3], 20, true);
    try {
      const leader = await c.serving();
      const term = leader.driver.status().term;
      for (let i = 0; i < 200; i++) await leader.driver.propose(i);
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline && [...c.replicas.values()].some((r) => r.applied.length < 200)) await new Promise((r) => setTimeout(r, 5));
      expect(leader.driver.isServing()).toBe(true);
      expect(leader.driver.status().term).toBe(term);
      const taken = [...c.replicas.values()].map((r) =>
        r.logged.filter((o) => (o as { message?: string }).message === "snapshot taken").map((o) => (o as { index: number }).index),
      );
      for (const t of taken) expect(t.length).toBeGreaterThanOrEqual(4);
      // Thresholds are drawn per replica in [20, 30): the replicas' snapshot points differ.
      expect(new Set(taken.map((t) => t.join(","))).size).toBeGreaterThan(1);
      const first = [...c.replicas.values()][0] as Replica;
      for (const r of c.replicas.values()) expect(r.applied).toEqual(first.applied);
    } finally {
      c.stopAll();
    }
  });

  it("brings a follower that missed compacted entries up to date with a snapshot", async () => {
    const c = makeCluster([1, 2, 3], 10);
    try {
      const leader = await c.serving();
      const lagging = [...c.replicas.values()].find((r) => r !== leader) as Replica;
      c.cut(lagging.id);
      // The other follower is caught up, so leadership may move at a snapshot: propose at whoever leads.
      for (let i = 0; i < 60; i++) {
        for (;;) {
          const l = await c.serving();
          if (await l.driver.propose(i).then(() => true, () => false)) break;
          await new Promise((r) => setTimeout(r, 2));
        }
      }
      const now = await c.serving();
      expect(now.storage.firstIndex()).toBeGreaterThan(lagging.storage.lastIndex() + 1); // the log it needs is gone
      c.heal(lagging.id);
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline && lagging.applied.length < 60) await new Promise((r) => setTimeout(r, 5));
      expect(lagging.applied).toEqual(Array.from({ length: 60 }, (_, i) => i));
      expect(lagging.storage.snapshot().meta.index).toBeGreaterThan(0);
    } finally {
      c.stopAll();
    }
  });

  it("serves linearizable reads on the leader only, after a majority confirmed it", async () => {
    const c = makeCluster([1, 2, 3]);
    try {
      const leader = await c.serving();
      await leader.driver.propose(7);
      await leader.driver.readBarrier();
      expect(leader.applied).toContain(7);
      // Many reads at once ride on one or two rounds, and all resolve.
      await Promise.all(Array.from({ length: 50 }, () => leader.driver.readBarrier()));
      const follower = [...c.replicas.values()].find((r) => r !== leader) as Replica;
      await expect(follower.driver.readBarrier()).rejects.toMatchObject({ reason: "not-leader" });
    } finally {
      c.stopAll();
    }
  });

  it("a deposed leader never answers a read, even before it learns it was deposed", async () => {
    const c = makeCluster([1, 2, 3]);
    try {
      const old = await c.serving();
      await old.driver.propose(1);
      c.cut(old.id);
      // Still believes it leads: the read is accepted but must wait for a majority.
      expect(old.driver.isServing()).toBe(true);
      let answered = false;
      const read = old.driver.readBarrier().then(() => {
        answered = true;
      });
      const settled = read.then(() => "resolved", (e: unknown) => e);
      // The others elect a new leader and commit a write the old one never sees.
      let fresh: Replica | undefined;
      const deadline = Date.now() + 5000;
      while (fresh === undefined && Date.now() < deadline) {
        fresh = [...c.replicas.values()].find((r) => r.id !== old.id && r.driver.isServing());
        await new Promise((res) => setTimeout(res, 5));
      }
      expect(fresh).toBeDefined();
      await (fresh as Replica).driver.propose(42);
      expect(old.applied).not.toContain(42);
      const outcome = await settled;
      expect(answered).toBe(false);
      expect(outcome).toBeInstanceOf(ProposalError);
      expect(old.driver.isServing()).toBe(false);
    } finally {
      c.stopAll();
    }
  });
});
