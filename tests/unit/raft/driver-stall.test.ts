/**
 * @module tests/unit/raft/driver-stall
 * A replica whose thread stalls (gets no CPU: no timer fires, no message is read) on
 * simulated time (driver-world.ts; SEED=n replays a run), with the daemon's timing (50 ms
 * tick, DAEMON_ELECTION_TICKS). A stalled replica's timers and incoming messages wait and run
 * when it resumes, a late interval once, as Node's event loop does. Checks: stalls of the
 * lengths bench/scale/ha.ts measured move no term (leader or follower stalled), the same stalls
 * with the old 6 ticks do (so the first check can fail), a frozen leader is still replaced
 * within two election timeouts, and nothing acknowledged is lost either way.
 */
import { describe, expect, it } from "vitest";
import type { Clock, TimerHandle } from "../../../src/lib/clock.ts";
import type { FakeClock } from "../../../src/lib/fake-clock.ts";
import { createRng } from "../../../src/lib/rng.ts";
import { DAEMON_ELECTION_TICKS, type RaftDriver, createRaftDriver } from "../../../src/raft/driver.ts";
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";
import type { Message } from "../../../src/raft/core/index.ts";
import { type World, createWorld } from "./driver-world.ts";

const TICK_MS = 50;

/** A clock whose callbacks are held while the replica is stalled and run when it resumes. */
function stallableClock(base: FakeClock) {
  let stalled = false;
  let held: { id: number; fn: () => void }[] = [];
  const cleared = new Set<number>();
  const gate = (fn: () => void) => {
    const box = { id: 0, fn };
    return {
      box,
      run: () => {
        if (cleared.has(box.id)) return;
        if (stalled) held.push(box);
        else fn();
      },
    };
  };
  const clock: Clock = {
    now: () => base.now(),
    monotonicMs: () => base.monotonicMs(),
    setTimeout(fn, ms, o) {
      const g = gate(fn);
      const h = base.setTimeout(g.run, ms, o);
      g.box.id = h.id;
      return h;
    },
    setInterval(fn, ms, o) {
      let pending = false;
      // A late interval fires once when the thread is back, not once per missed period.
      const once = () => {
        pending = false;
        fn();
      };
      const h: TimerHandle = base.setInterval(() => {
        if (cleared.has(h.id)) return;
        if (!stalled) return fn();
        if (!pending) {
          pending = true;
          held.push({ id: h.id, fn: once });
        }
      }, ms, o);
      return h;
    },
    setImmediate(fn) {
      const g = gate(fn);
      const h = base.setImmediate(g.run);
      g.box.id = h.id;
      return h;
    },
    clear(h) {
      if (h !== undefined) cleared.add(h.id);
      base.clear(h);
    },
  };
  return {
    clock,
    isStalled: () => stalled,
    stall: () => {
      stalled = true;
    },
    /** Timers first (the loop's timer phase), then `thenRead` (the poll phase: queued messages). */
    resume(thenRead: () => void) {
      stalled = false;
      const due = held;
      held = [];
      for (const b of due) if (!cleared.has(b.id)) b.fn();
      thenRead();
    },
  };
}

interface Replica {
  id: number;
  driver: RaftDriver;
  applied: number[];
  storage: MemoryStorage;
  clock: ReturnType<typeof stallableClock>;
  inbox: Message[];
}

function makeCluster(w: World, electionTicks: number) {
  const ids = [1, 2, 3];
  const replicas = new Map<number, Replica>();
  const deliver = (msgs: Message[]) => {
    for (const m of msgs) {
      w.clock.setTimeout(() => {
        const to = replicas.get(m.to);
        if (to === undefined) return;
        if (to.clock.isStalled()) to.inbox.push(m);
        else to.driver.receive([m]);
      }, w.rng.int(1, 3));
    }
  };
  for (const id of ids) {
    const storage = MemoryStorage.bootstrap(ids);
    const clock = stallableClock(w.clock);
    const r: Replica = { id, storage, clock, inbox: [], applied: [], driver: undefined as unknown as RaftDriver };
    r.driver = createRaftDriver(
      {
        id, storage, rng: createRng(w.seed * 31 + id), send: deliver, clock: clock.clock,
        applyCommand: (c) => {
          r.applied.push(c as number);
          return r.applied.length;
        },
        restore: () => undefined,
        takeSnapshot: () => new Uint8Array(0),
        onServing: () => undefined,
      },
      { tickMs: TICK_MS, electionTicks },
    );
    replicas.set(id, r);
  }
  for (const r of replicas.values()) r.driver.start();
  const servingNow = () => [...replicas.values()].find((r) => !r.clock.isStalled() && r.driver.isServing());
  const serving = async (): Promise<Replica> => {
    await w.until(() => servingNow() !== undefined, 10_000);
    return servingNow() as Replica;
  };
  const stall = (r: Replica) => r.clock.stall();
  const resume = (r: Replica) =>
    r.clock.resume(() => {
      const queued = r.inbox.splice(0);
      if (queued.length > 0) r.driver.receive(queued);
    });
  const term = () => Math.max(...[...replicas.values()].map((r) => r.driver.status().term));
  const stopAll = () => {
    for (const r of replicas.values()) r.driver.stop();
  };
  return { replicas, serving, stall, resume, term, stopAll };
}

/**
 * Proposals keep flowing from the leader while `victim` stalls `rounds` times, each stall
 * drawn in [minMs, maxMs] and followed by 400 ms of normal running. Returns the term moves.
 */
async function stallRounds(w: World, electionTicks: number, victim: "leader" | "follower", rounds: number, minMs: number, maxMs: number) {
  const c = makeCluster(w, electionTicks);
  try {
    const leader = await c.serving();
    const termBefore = c.term();
    const acked: number[] = [];
    let n = 0;
    for (let round = 0; round < rounds; round++) {
      const lead = await c.serving();
      const target = victim === "leader" ? lead : ([...c.replicas.values()].find((r) => r !== lead) as Replica);
      const proposals = Array.from({ length: 8 }, () => {
        const v = ++n;
        return lead.driver.propose(v).then(() => acked.push(v), () => undefined);
      });
      c.stall(target);
      await w.runFor(w.rng.int(minMs, maxMs));
      c.resume(target);
      await w.runFor(400);
      await w.settle(Promise.all(proposals));
    }
    const last = await c.serving();
    // Nothing acknowledged is lost: every acked value is applied on whoever serves now.
    for (const v of acked) expect(last.applied).toContain(v);
    return { moves: c.term() - termBefore, sameLeader: last.id === leader.id, acked: acked.length };
  } finally {
    c.stopAll();
  }
}

describe("raft driver: stalled threads (simulated time, daemon timing)", () => {
  it(`a leader stalled up to 900 ms again and again keeps its term with ${DAEMON_ELECTION_TICKS} election ticks`, async () => {
    const w = createWorld(41);
    console.log(`SEED=${w.seed}`);
    const r = await stallRounds(w, DAEMON_ELECTION_TICKS, "leader", 12, 200, 900);
    expect(r).toEqual({ moves: 0, sameLeader: true, acked: 96 });
  });

  it("the same leader stalls with 6 election ticks (300-600 ms) move the term: the check above can fail", async () => {
    const w = createWorld(41);
    const r = await stallRounds(w, 6, "leader", 12, 200, 900);
    expect(r.moves).toBeGreaterThan(0);
  });

  it("a follower stalled for 3 s (past any election timeout) deposes nobody when it resumes: pre-vote and the other voter's lease", async () => {
    const w = createWorld(42);
    console.log(`SEED=${w.seed}`);
    const r = await stallRounds(w, DAEMON_ELECTION_TICKS, "follower", 4, 3000, 3000);
    expect(r).toEqual({ moves: 0, sameLeader: true, acked: 32 });
  });

  it("a leader frozen for good is replaced within two election timeouts, and what it acknowledged stays", async () => {
    const w = createWorld(43);
    console.log(`SEED=${w.seed}`);
    const c = makeCluster(w, DAEMON_ELECTION_TICKS);
    try {
      const leader = await c.serving();
      const acked = await w.settle(Promise.all([1, 2, 3].map((v) => leader.driver.propose(v))));
      expect(acked).toEqual([1, 2, 3]);
      const termBefore = c.term();
      c.stall(leader);
      const frozenAt = w.clock.now();
      const next = await c.serving();
      expect(next.id).not.toBe(leader.id);
      expect(w.clock.now() - frozenAt).toBeLessThanOrEqual(2 * DAEMON_ELECTION_TICKS * TICK_MS + 200);
      expect(c.term()).toBeGreaterThan(termBefore);
      await w.settle(next.driver.propose(4));
      expect(next.applied).toEqual([1, 2, 3, 4]);
      // Thawed, the old leader learns the new term and follows.
      c.resume(leader);
      await w.until(() => leader.applied.length === 4, 5000);
      expect(leader.driver.isServing()).toBe(false);
    } finally {
      c.stopAll();
    }
  });
});
