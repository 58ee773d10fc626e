/**
 * @module tests/unit/raft/membership-driver
 * Adding and removing a replica through the async driver (src/raft/membership.ts) over an
 * in-memory transport: a fresh replica joins as a learner, catches up (by snapshot when the
 * log it needs is compacted), is promoted to voter, the address given with the change reaches
 * every replica; a voter is removed; proposals made throughout are all applied, none lost;
 * unsafe removals are refused with a clear message. On simulated time (driver-world.ts:
 * SEED=n replays a run).
 */
import { describe, expect, it } from "vitest";
import { createRng } from "../../../src/lib/rng.ts";
import type { Message } from "../../../src/raft/core/index.ts";
import { type RaftDriver, createRaftDriver } from "../../../src/raft/driver.ts";
import { MembershipError, addReplica, removalRefusal, removeReplica } from "../../../src/raft/membership.ts";
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";
import { type World, createWorld } from "./driver-world.ts";

interface Replica {
  id: number;
  driver: RaftDriver;
  applied: number[];
  /** Addresses learned from applied membership changes. */
  addresses: Map<number, string>;
}

function makeCluster(w: World, initial: number[], snapshotEveryEntries: number) {
  const replicas = new Map<number, Replica>();
  const down = new Set<number>();
  const deliver = (msgs: Message[]) => {
    for (const m of msgs) {
      if (down.has(m.to) || down.has(m.from)) continue;
      w.clock.setTimeout(() => {
        if (!down.has(m.to) && !down.has(m.from)) replicas.get(m.to)?.driver.receive([m]);
      }, w.rng.int(1, 3));
    }
  };
  const start = (id: number, storage: MemoryStorage) => {
    const r: Replica = { id, applied: [], addresses: new Map(), driver: undefined as unknown as RaftDriver };
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
        onServing: () => undefined,
        onConfChange: (cc) => {
          if (cc.context !== undefined) r.addresses.set(cc.nodeId, cc.context);
        },
      },
      { tickMs: 5, snapshotEveryEntries, trailingEntries: 5 },
    );
    replicas.set(id, r);
    r.driver.start();
    return r;
  };
  for (const id of initial) start(id, MemoryStorage.bootstrap(initial));
  const servingNow = () => [...replicas.values()].find((r) => !down.has(r.id) && r.driver.isServing());
  const serving = async (): Promise<Replica> => {
    await w.until(() => servingNow() !== undefined, 5000);
    return servingNow() as Replica;
  };
  /** Propose at whoever serves until one commits (leadership may move at a snapshot). */
  const commit = async (n: number) => {
    for (;;) {
      const l = await serving();
      if (await w.settle(l.driver.propose(n).then(() => true, () => false))) return;
      await w.runFor(2);
    }
  };
  const stopAll = () => {
    for (const r of replicas.values()) r.driver.stop();
  };
  return { replicas, down, start, serving, commit, stopAll };
}

/** Run a membership call at the serving leader, again at the next one if leadership moves (load). */
async function atLeader<T>(w: World, serving: () => Promise<Replica>, run: (d: RaftDriver) => Promise<T>): Promise<T> {
  for (;;) {
    const leader = await serving();
    try {
      return await w.settle(run(leader.driver));
    } catch (e) {
      if (!(e instanceof MembershipError) || e.code === "Timeout" || e.code === "Refused") throw e;
    }
  }
}

describe("membership changes through the driver", () => {
  it("adds a 4th replica as learner, promotes it once caught up, removes a voter; no proposal is lost", async () => {
    const w = createWorld(21);
    const c = makeCluster(w, [1, 2, 3], 10);
    try {
      for (let i = 0; i < 40; i++) await c.commit(i);
      // A fresh replica: empty log, no membership; it never campaigns, it waits to be contacted.
      const fresh = c.start(4, new MemoryStorage());
      let next = 40;
      let adding = true;
      // Proposals keep coming while the replica is added (each step of simulated time interleaves them).
      const background = (async () => {
        while (adding) {
          const d = [...c.replicas.values()].find((r) => !c.down.has(r.id) && r.driver.isServing())?.driver;
          if (d !== undefined && (await d.propose(next).then(() => true, () => false))) next++;
          else await new Promise<void>((res) => w.clock.setTimeout(res, 2));
        }
      })();
      const conf = await atLeader(w, c.serving, (d) => addReplica(d, 4, "host4:7000:7001", { pollMs: 5, catchUpTimeoutMs: 5000, clock: w.clock }));
      expect(conf.voters.sort()).toEqual([1, 2, 3, 4]);
      expect(conf.learners).toEqual([]);
      adding = false;
      await w.settle(background);
      await w.until(() => fresh.applied.length === next);
      expect(fresh.applied).toEqual(Array.from({ length: next }, (_, i) => i));
      // The address travelled with the change and reached the replicas that applied it.
      for (const id of [1, 2, 3]) expect(c.replicas.get(id)?.addresses.get(4)).toBe("host4:7000:7001");
      expect(fresh.driver.status().confState.voters.sort()).toEqual([1, 2, 3, 4]);

      // Remove a voter that is not the leader; the cluster keeps committing with 3.
      const leader = await c.serving();
      const victim = [1, 2, 3].find((id) => id !== leader.id) as number;
      const after = await atLeader(w, c.serving, (d) => removeReplica(d, victim, false, w.clock));
      expect(after.voters.sort()).toEqual([1, 2, 3, 4].filter((id) => id !== victim));
      c.down.add(victim);
      c.replicas.get(victim)?.driver.stop();
      for (let i = 0; i < 10; i++) await c.commit(next++);
      const live = [...c.replicas.values()].filter((r) => r.id !== victim);
      await w.until(() => live.every((r) => r.applied.length === next));
      for (const r of live) expect(r.applied).toEqual(Array.from({ length: next }, (_, i) => i));
    } finally {
      c.stopAll();
    }
  });

  it("keeps a replica that cannot be reached a learner and says so", async () => {
    const w = createWorld(22);
    const c = makeCluster(w, [1, 2, 3], 1_000_000);
    try {
      await c.commit(1);
      c.down.add(5); // never started, never reachable
      const leader = await c.serving();
      const startMs = w.clock.now();
      const err = await w.settle(addReplica(leader.driver, 5, "host5:1:2", { pollMs: 5, catchUpTimeoutMs: 200, clock: w.clock }).catch((e: unknown) => e));
      expect(w.clock.now() - startMs).toBeGreaterThanOrEqual(200); // gave up on simulated time, not before
      expect(err).toBeInstanceOf(MembershipError);
      expect((err as MembershipError).message).toMatch(/did not catch up.*stays a learner/);
      expect(leader.driver.status().confState).toEqual({ voters: [1, 2, 3], learners: [5] });
      // The learner does not count toward quorum: commits go on, and it can be removed.
      await c.commit(2);
      const conf = await w.settle(removeReplica(leader.driver, 5, false, w.clock));
      expect(conf).toEqual({ voters: [1, 2, 3], learners: [] });
    } finally {
      c.stopAll();
    }
  });
});

describe("removalRefusal", () => {
  const conf = { voters: [1, 2, 3, 4], learners: [5] };
  it("allows removing a voter when three reachable voters remain, and any learner", () => {
    expect(removalRefusal(conf, [1, 2, 3, 4], 4, false)).toBeUndefined();
    expect(removalRefusal(conf, [1], 5, false)).toBeUndefined();
  });
  it("refuses to go below three voters unless forced, and never below a reachable quorum", () => {
    const three = { voters: [1, 2, 3], learners: [] };
    expect(removalRefusal(three, [1, 2, 3], 3, false)).toMatch(/would leave 2 voting controllers, fewer than 3/);
    expect(removalRefusal(three, [1, 2, 3], 3, true)).toBeUndefined();
    expect(removalRefusal(conf, [1, 4], 4, false)).toMatch(/1 reachable of 3 voters, fewer than the 2 needed/);
    expect(removalRefusal({ voters: [1], learners: [] }, [1], 1, true)).toBe("cannot remove the last controller");
    expect(removalRefusal(conf, [1, 2, 3, 4], 9, false)).toMatch(/controller 9 is not a member/);
  });
});
