/**
 * @module tests/unit/raft/driver
 * The async driver with three in-process replicas over an in-memory transport, on simulated
 * time (driver-world.ts: SEED=n replays a run): proposals resolve with the applied result on
 * the serving leader only, a stopped leader is replaced, nothing acknowledged is lost, and
 * snapshots + compaction keep replicas equal.
 */
import { describe, expect, it } from "vitest";
import { createRng } from "../../../src/lib/rng.ts";
import { type RaftDriver, ProposalError, createRaftDriver } from "../../../src/raft/driver.ts";
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";
import type { BuiltSnapshot } from "../../../src/raft/driver/api.ts";
import type { Message } from "../../../src/raft/core/index.ts";
import { type World, createWorld } from "./driver-world.ts";

interface Replica {
  id: number;
  driver: RaftDriver;
  applied: number[];
  storage: MemoryStorage;
  logged: object[];
}

function makeCluster(w: World, ids: number[], snapshotEveryEntries = 1_000_000, asyncSnapshots = false, snapshotWeight?: (r: Replica) => number) {
  const replicas = new Map<number, Replica>();
  const down = new Set<number>();
  const sent: Message[] = [];
  const deliver = (msgs: Message[]) => {
    sent.push(...msgs);
    for (const m of msgs) {
      if (down.has(m.to) || down.has(m.from)) continue;
      w.clock.setTimeout(() => {
        if (!down.has(m.to) && !down.has(m.from)) replicas.get(m.to)?.driver.receive([m]);
      }, w.rng.int(1, 3));
    }
  };
  for (const id of ids) {
    const storage = MemoryStorage.bootstrap(ids);
    const r: Replica = { id, storage, applied: [], logged: [], driver: undefined as unknown as RaftDriver };
    r.driver = createRaftDriver(
      {
        id, storage, rng: createRng(w.seed * 31 + id), send: deliver, clock: w.clock,
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
                return new Promise<BuiltSnapshot>((res) => w.clock.setTimeout(() => res({ image, bytes: image.length, encodeMs: 0 }), 3));
              },
            }
          : {}),
        ...(snapshotWeight === undefined ? {} : { snapshotWeight: () => snapshotWeight(r) }),
        onServing: () => undefined,
        logger: { info: (o: object) => r.logged.push(o), warn: (o: object) => r.logged.push(o) },
      },
      { tickMs: 5, snapshotEveryEntries, trailingEntries: 5 },
    );
    replicas.set(id, r);
  }
  for (const r of replicas.values()) r.driver.start();
  const servingNow = () => [...replicas.values()].find((r) => !down.has(r.id) && r.driver.isServing());
  const serving = async (): Promise<Replica> => {
    await w.until(() => servingNow() !== undefined, 5000);
    return servingNow() as Replica;
  };
  /** Propose at whoever serves until one commits (a leader due for a snapshot hands leadership over). */
  const commit = async (n: number) => {
    for (;;) {
      const leader = await serving();
      if (await w.settle(leader.driver.propose(n).then(() => true, () => false))) return;
      await w.runFor(2);
    }
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
  return { replicas, serving, commit, kill, stopAll, cut, heal, sent };
}

describe("raft driver (simulated time)", () => {
  it("commits proposals on the leader, refuses them elsewhere, survives a leader stop", async () => {
    const w = createWorld(1);
    const c = makeCluster(w, [1, 2, 3]);
    try {
      const leader = await c.serving();
      const results = await w.settle(Promise.all([1, 2, 3, 4, 5].map((n) => leader.driver.propose(n))));
      expect(results).toEqual([1, 2, 3, 4, 5]);
      const follower = [...c.replicas.values()].find((r) => r !== leader) as Replica;
      await expect(follower.driver.propose(9)).rejects.toBeInstanceOf(ProposalError);
      c.kill(leader.id);
      const next = await c.serving();
      expect(next.id).not.toBe(leader.id);
      await w.settle(next.driver.propose(6));
      expect(next.applied).toEqual([1, 2, 3, 4, 5, 6]); // nothing acknowledged was lost
    } finally {
      c.stopAll();
    }
  });

  it("group commit: proposals made together go to each follower as one append of consecutive entries", async () => {
    const w = createWorld(2);
    const c = makeCluster(w, [1, 2, 3]);
    try {
      const leader = await c.serving();
      await w.settle(leader.driver.propose(0));
      c.sent.length = 0;
      const results = await w.settle(Promise.all(Array.from({ length: 50 }, (_, i) => leader.driver.propose(i + 1))));
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

  it("a proposal that cannot commit (followers cut off) is answered 'unknown' after proposalTimeoutMs of simulated time", async () => {
    const w = createWorld(3);
    const c = makeCluster(w, [1, 2, 3]);
    try {
      const leader = await c.serving();
      for (const r of c.replicas.values()) if (r !== leader) c.cut(r.id);
      const startMs = w.clock.now();
      const outcome = await w.settle(leader.driver.propose(1).then(() => "committed", (e: unknown) => e), 20_000);
      // Check-quorum deposes the isolated leader first (within an election timeout), or the timer fires.
      expect(outcome).toBeInstanceOf(ProposalError);
      expect((outcome as ProposalError).reason).toBe("unknown");
      expect(w.clock.now() - startMs).toBeLessThanOrEqual(10_000);
    } finally {
      c.stopAll();
    }
  });

  it("snapshots and compacts the log while replicas stay equal", async () => {
    const w = createWorld(4);
    const c = makeCluster(w, [1, 2, 3], 10);
    try {
      for (let i = 0; i < 60; i++) await c.commit(i);
      await w.until(() => [...c.replicas.values()].every((r) => r.applied.length >= 60), 3000);
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
    const w = createWorld(5);
    const c = makeCluster(w, [1, 2, 3], 20, true);
    try {
      const leader = await c.serving();
      const term = leader.driver.status().term;
      for (let i = 0; i < 200; i++) await w.settle(leader.driver.propose(i));
      await w.until(() => [...c.replicas.values()].every((r) => r.applied.length >= 200), 3000);
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

  it("waits for as many entries as the state weighed at the last snapshot (with the replica's jitter) when that is more than snapshotEveryEntries", async () => {
    for (const [weight, least, most] of [[100, 100, 150], [10, 20, 30]] as const) {
      const w = createWorld(7);
      const c = makeCluster(w, [1, 2, 3], 20, true, () => weight);
      try {
        const leader = await c.serving();
        for (let i = 0; i < 520; i++) await w.settle(leader.driver.propose(i));
        await w.until(() => [...c.replicas.values()].every((r) => r.applied.length >= 520), 3000);
        for (const r of c.replicas.values()) {
          const taken = r.logged.filter((o) => (o as { message?: string }).message === "snapshot taken").map((o) => (o as { index: number }).index);
          expect(taken.length, `weight ${weight}`).toBeGreaterThanOrEqual(3);
          // from one snapshot to the next: the threshold, or a little more while one is being built
          taken.slice(1).forEach((at, k) => {
            const gap = at - (taken[k] as number);
            expect(gap, `weight ${weight}: snapshots at ${taken.join(",")}`).toBeGreaterThanOrEqual(least);
            expect(gap, `weight ${weight}: snapshots at ${taken.join(",")}`).toBeLessThan(most + 10);
          });
        }
      } finally {
        c.stopAll();
      }
    }
  });

  it("keeps taking snapshots while the state grows by one an entry (the weight is the last snapshot's)", async () => {
    const w = createWorld(8);
    // each replica's state: as many as it applied
    const c = makeCluster(w, [1, 2, 3], 20, true, (r) => r.applied.length);
    try {
      const leader = await c.serving();
      for (let i = 0; i < 300; i++) await w.settle(leader.driver.propose(i));
      await w.until(() => [...c.replicas.values()].every((r) => r.applied.length >= 300), 3000);
      for (const r of c.replicas.values()) {
        const taken = r.logged.filter((o) => (o as { message?: string }).message === "snapshot taken").length;
        // 20-30, then as many again as the state was then: about 50, 100, 200
        expect(taken).toBeGreaterThanOrEqual(3);
      }
    } finally {
      c.stopAll();
    }
  });

  it("brings a follower that missed compacted entries up to date with a snapshot", async () => {
    const w = createWorld(6);
    const c = makeCluster(w, [1, 2, 3], 10);
    try {
      const leader = await c.serving();
      const lagging = [...c.replicas.values()].find((r) => r !== leader) as Replica;
      c.cut(lagging.id);
      // The other follower is caught up, so leadership may move at a snapshot: propose at whoever leads.
      for (let i = 0; i < 60; i++) await c.commit(i);
      const now = await c.serving();
      expect(now.storage.firstIndex()).toBeGreaterThan(lagging.storage.lastIndex() + 1); // the log it needs is gone
      c.heal(lagging.id);
      await w.until(() => lagging.applied.length >= 60, 5000);
      expect(lagging.applied).toEqual(Array.from({ length: 60 }, (_, i) => i));
      expect(lagging.storage.snapshot().meta.index).toBeGreaterThan(0);
      expect(lagging.logged.some((o) => (o as { message?: string }).message === "snapshot installed from the leader")).toBe(true);
    } finally {
      c.stopAll();
    }
  });

  it("serves linearizable reads on the leader only, after a majority confirmed it", async () => {
    const w = createWorld(7);
    const c = makeCluster(w, [1, 2, 3]);
    try {
      const leader = await c.serving();
      await w.settle(leader.driver.propose(7));
      await w.settle(leader.driver.readBarrier());
      expect(leader.applied).toContain(7);
      // Many reads at once ride on one or two rounds, and all resolve.
      await w.settle(Promise.all(Array.from({ length: 50 }, () => leader.driver.readBarrier())));
      const follower = [...c.replicas.values()].find((r) => r !== leader) as Replica;
      await expect(follower.driver.readBarrier()).rejects.toMatchObject({ reason: "not-leader" });
    } finally {
      c.stopAll();
    }
  });

  it("a deposed leader never answers a read, even before it learns it was deposed", async () => {
    const w = createWorld(8);
    const c = makeCluster(w, [1, 2, 3]);
    try {
      const old = await c.serving();
      await w.settle(old.driver.propose(1));
      c.cut(old.id);
      // Still believes it leads: the read is accepted but must wait for a majority.
      expect(old.driver.isServing()).toBe(true);
      let answered = false;
      const read = old.driver.readBarrier().then(() => {
        answered = true;
      });
      const settled = read.then(() => "resolved", (e: unknown) => e);
      // The others elect a new leader and commit a write the old one never sees.
      const fresh = () => [...c.replicas.values()].find((r) => r.id !== old.id && r.driver.isServing());
      await w.until(() => fresh() !== undefined, 5000);
      await w.settle((fresh() as Replica).driver.propose(42));
      expect(old.applied).not.toContain(42);
      const outcome = await w.settle(settled);
      expect(answered).toBe(false);
      expect(outcome).toBeInstanceOf(ProposalError);
      expect(old.driver.isServing()).toBe(false);
    } finally {
      c.stopAll();
    }
  });

  it("the same seed replays the same run: same leader, same terms, same messages", async () => {
    const run = async () => {
      const w = createWorld(9);
      const c = makeCluster(w, [1, 2, 3]);
      try {
        const leader = await c.serving();
        await w.settle(Promise.all([1, 2, 3].map((n) => leader.driver.propose(n))));
        return { leader: leader.id, term: leader.driver.status().term, atMs: w.clock.now(), messages: c.sent.map((m) => `${m.type}:${m.from}>${m.to}@${m.term}`) };
      } finally {
        c.stopAll();
      }
    };
    const a = await run();
    expect(await run()).toEqual(a);
  });
});
