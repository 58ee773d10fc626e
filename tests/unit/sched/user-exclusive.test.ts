/**
 * --exclusive=user (plan/user-exclusive.ts): the pure rule, the scheduler's placement on a small
 * cluster, the plan applier's re-check of a decision that breaks the rule, and a seeded
 * simulation of two users' jobs with the invariant checked after every command
 * (SEED=<n> replays one run).
 */
import { describe, expect, it } from "vitest";
import { nodeUsersOf, userMayUse, withUser } from "../../../src/sched/plan/user-exclusive.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import { createRng } from "../../../src/lib/rng.ts";
import { ALICE, ROOT, cluster, spec, submit } from "./builders.ts";

const root = { userId: 0, exclusiveUser: false };
const rootOwn = { userId: 0, exclusiveUser: true };
const alice = { userId: 1000, exclusiveUser: false };
const aliceOwn = { userId: 1000, exclusiveUser: true };

describe("userMayUse", () => {
  it("lets anyone on a node nobody runs on", () => {
    for (const ask of [root, rootOwn, alice, aliceOwn]) expect(userMayUse(undefined, ask)).toBe(true);
  });

  it("keeps other users off a node held with --exclusive=user, and lets its own user's plain jobs in", () => {
    const held = withUser(undefined, rootOwn);
    expect(userMayUse(held, root)).toBe(true);
    expect(userMayUse(held, rootOwn)).toBe(true);
    expect(userMayUse(held, alice)).toBe(false);
    expect(userMayUse(held, aliceOwn)).toBe(false);
  });

  it("keeps an --exclusive=user job off a node where another user runs, but not plain jobs", () => {
    const shared = withUser(undefined, alice);
    expect(userMayUse(shared, rootOwn)).toBe(false);
    expect(userMayUse(shared, root)).toBe(true);
    expect(userMayUse(shared, aliceOwn)).toBe(true);
  });

  it("withUser keeps users and owners distinct and sorted, and leaves its input alone", () => {
    const one = withUser(undefined, aliceOwn);
    const two = withUser(withUser(one, root), aliceOwn);
    expect(one).toEqual({ users: [1000], owners: [1000] });
    expect(two).toEqual({ users: [0, 1000], owners: [1000] });
  });
});

/** One scheduling pass, its starts committed; returns the pending reasons it gave. */
function pass(c: ReturnType<typeof cluster>, now: number): ReadonlyMap<number, string> {
  const result = schedule(c.state, now);
  c.run({ v: 1, type: "startJobs", at: now, decisions: result.decisions });
  return result.reasons;
}

const jobOf = (state: ClusterState, id: number) => state.jobs.get(id)?.info;

describe("scheduling with --exclusive=user", () => {
  it("shares the node with the same user's jobs only (oracle 22.05: nobody's job waits with Resources)", () => {
    const c = cluster();
    const own = c.run(submit(spec({ ntasks: 1, nodelist: "n1", exclusiveUser: true }), 10, ROOT)).ids[0] as number;
    pass(c, 11);
    const mine = c.run(submit(spec({ ntasks: 1, nodelist: "n1" }), 12, ROOT)).ids[0] as number;
    const other = c.run(submit(spec({ ntasks: 1, nodelist: "n1" }), 12, ALICE)).ids[0] as number;
    const reasons = pass(c, 13);
    expect(jobOf(c.state, own)?.state).toBe("RUNNING");
    expect(jobOf(c.state, own)?.numCpus).toBe(1); // its share, not the whole node
    expect(jobOf(c.state, mine)?.state).toBe("RUNNING");
    expect(jobOf(c.state, other)?.state).toBe("PENDING");
    expect(reasons.get(other)).toBe("Resources");
    c.run({ v: 1, type: "jobEnded", at: 14, jobId: own, exitCode: 0, exitSignal: 0, outcome: "" });
    pass(c, 15);
    expect(jobOf(c.state, other)?.state).toBe("RUNNING");
  });

  it("is not placed beside another user's job, and goes to a node without one", () => {
    const c = cluster();
    const others = ["n1", "n2", "n3"].map((n) => c.run(submit(spec({ ntasks: 1, nodelist: n }), 10, ALICE)).ids[0] as number);
    pass(c, 11);
    const pinned = c.run(submit(spec({ ntasks: 1, nodelist: "n2", exclusiveUser: true }), 12, ROOT)).ids[0] as number;
    const free = c.run(submit(spec({ ntasks: 1, partition: "debug", exclusiveUser: true }), 12, ROOT)).ids[0] as number;
    pass(c, 13);
    expect(others.map((id) => jobOf(c.state, id)?.state)).toEqual(["RUNNING", "RUNNING", "RUNNING"]);
    expect(jobOf(c.state, pinned)?.state).toBe("PENDING");
    expect(jobOf(c.state, free)?.state).toBe("RUNNING");
    expect(["n1", "n2", "n3"]).not.toContain(jobOf(c.state, free)?.alloc[0]?.node);
  });

  it("keeps two users apart within one pass", () => {
    const c = cluster("ClusterName=t\nNodeName=n1 CPUs=4 RealMemory=4000 Port=1\nPartitionName=p Nodes=n1 Default=YES MaxTime=INFINITE\n");
    const a = c.run(submit(spec({ ntasks: 1, exclusiveUser: true }), 10, ROOT)).ids[0] as number;
    const b = c.run(submit(spec({ ntasks: 1 }), 10, ALICE)).ids[0] as number;
    pass(c, 11);
    expect([jobOf(c.state, a)?.state, jobOf(c.state, b)?.state].sort()).toEqual(["PENDING", "RUNNING"]);
  });

  it("in an OverSubscribe=EXCLUSIVE partition it is whole nodes and reads as --exclusive (oracle 22.05: OverSubscribe=NO, NumCPUs=4)", () => {
    const c = cluster("ClusterName=t\nNodeName=n1 CPUs=4 RealMemory=4000 Port=1\nPartitionName=p Nodes=n1 Default=YES MaxTime=INFINITE OverSubscribe=EXCLUSIVE\n");
    const id = c.run(submit(spec({ ntasks: 1, exclusiveUser: true }), 10, ROOT)).ids[0] as number;
    pass(c, 11);
    expect([jobOf(c.state, id)?.exclusive, jobOf(c.state, id)?.exclusiveUser, jobOf(c.state, id)?.alloc[0]?.cpus]).toEqual([true, undefined, 4]);
  });

  it("the plan applier refuses a decision that breaks the rule", () => {
    const c = cluster();
    c.run(submit(spec({ ntasks: 1, nodelist: "n1", exclusiveUser: true }), 10, ROOT));
    pass(c, 11);
    const other = c.run(submit(spec({ ntasks: 1, nodelist: "n1" }), 12, ALICE)).ids[0] as number;
    const alloc = [{ node: "n1", cpus: 1, memMib: 256, gpuIndices: [], tasks: 1 }];
    const r = c.run({ v: 1, type: "startJobs", at: 13, decisions: [{ jobId: other, arrayTaskId: -1, alloc }] });
    expect(r.items[0]?.error).toMatch(/stale start decision: node n1 shared with another user/);
    expect(jobOf(c.state, other)?.state).toBe("PENDING");
  });
});

/** No node runs an --exclusive=user job beside a job of another user. */
function checkRule(state: ClusterState): void {
  for (const [node, users] of nodeUsersOf(state.jobs.values())) {
    if (users.owners.length > 0) expect({ node, users: users.users }).toEqual({ node, users: users.owners });
  }
}

function randomCommand(rng: ReturnType<typeof createRng>, state: ClusterState, now: number, stale: Command[]): Command {
  const roll = rng.next();
  const running = [...state.jobs.values()].filter((j) => j.info.state === "RUNNING");
  if (roll < 0.45) {
    const s = spec({
      ntasks: rng.int(1, 5), nodesMin: rng.pick([0, 0, 1, 2]), exclusiveUser: rng.next() < 0.4,
      nodelist: rng.next() < 0.2 ? rng.pick(["n1", "n2", "g1"]) : "", exclusive: rng.next() < 0.05,
    });
    return submit(s, now, rng.next() < 0.5 ? ROOT : ALICE);
  }
  if (roll < 0.7 && running.length > 0) {
    return { v: 1, type: "jobEnded", at: now, jobId: rng.pick(running).info.jobId, exitCode: 0, exitSignal: 0, outcome: "" };
  }
  // a pass's decisions, sometimes committed late (after other commands), as the controller may
  const fresh: Command = { v: 1, type: "startJobs", at: now, decisions: schedule(state, now).decisions };
  if (rng.next() < 0.3) {
    stale.push(fresh);
    return { v: 1, type: "startJobs", at: now, decisions: [] };
  }
  const late = stale.shift();
  return late === undefined ? fresh : { ...late, at: now };
}

describe("--exclusive=user simulation", () => {
  const seeds = process.env.SEED ? [Number(process.env.SEED)] : Array.from({ length: Number(process.env.SEEDS ?? 20) }, (_, i) => i + 1);
  it(`never puts another user's job beside an --exclusive=user job (${seeds.length} seeds)`, { timeout: 120_000 }, () => {
    let owned = 0;
    for (const seed of seeds) {
      try {
        const rng = createRng(seed);
        const c = cluster();
        const stale: Command[] = [];
        let now = 100;
        for (let i = 0; i < 200; i++) {
          now += rng.int(0, 5);
          c.run(randomCommand(rng, c.state, now, stale));
          checkRule(c.state);
          owned += [...nodeUsersOf(c.state.jobs.values()).values()].filter((u) => u.owners.length > 0).length;
        }
      } catch (error) {
        throw new Error(`SEED=${seed} failed (replay: SEED=${seed} bun --bun vitest run tests/unit/sched/user-exclusive.test.ts): ${String(error)}`);
      }
    }
    // the rule was exercised: nodes were held with --exclusive=user during the runs
    if (seeds.length > 1) expect(owned).toBeGreaterThan(0);
  });
});
