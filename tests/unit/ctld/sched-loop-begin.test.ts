/**
 * The scheduler loop's views of jobs waiting for their begin time (ctld/sched-loop.ts), which
 * its pass leaves out of the queue and its maps (schedule's omitBegin): each reads the reason
 * (BeginTime) and the priority with its factors (squeue %Q, sprio) that the reference loop
 * (queueBegin: every job queued) gives; a job submitted after the pass reads as the reference
 * reads it (nothing from the loop); the pass whose time reaches a job's begin time starts it;
 * and a pass invalidates the listing cache whenever the reference's does, here when fair
 * share alone moves the left-out jobs' priorities.
 */
import { describe, expect, it } from "vitest";
import { createSchedLoop } from "../../../src/ctld/sched-loop.ts";
import { newSchedCounters } from "../../../src/ctld/sched-stats.ts";
import type { Clock, TimerHandle } from "../../../src/lib/clock.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { ALICE, ROOT, cluster, spec, submit } from "../sched/builders.ts";

function loopOn(state: ClusterState, at: { now: number }, reference: boolean) {
  let due: (() => void) | undefined;
  const handle: TimerHandle = { id: 1 };
  const clock: Clock = {
    now: () => at.now * 1000, monotonicMs: () => 0, setTimeout: (fn) => ((due = fn), handle),
    setInterval: () => handle, setImmediate: () => handle, clear: () => (due = undefined),
  };
  const seen = { viewsChanged: 0, started: [] as number[] };
  const loop = createSchedLoop({
    state, clock, now: () => at.now, logger: { info() {}, warn() {}, error() {} } as never, counters: newSchedCounters(at.now),
    acting: () => true, diskFull: () => false, executeInternal: () => {}, viewsChanged: () => void seen.viewsChanged++,
    execute: (c: Command) => {
      if (c.type === "startJobs") seen.started.push(...c.decisions.map((d) => d.jobId));
      return Promise.resolve({ ids: [], error: "" }) as never;
    },
    queueHeld: reference, queueBegin: reference,
  });
  const pass = async (): Promise<void> => {
    loop.kick();
    const fn = due;
    due = undefined;
    fn?.();
    await Promise.resolve(); // the start command settles: the next pass may run
    await Promise.resolve();
  };
  return { loop, pass, seen };
}

const CONF = [
  "ClusterName=t", "PriorityType=priority/multifactor", "PriorityWeightAge=1000", "PriorityWeightFairshare=100000", "PriorityWeightJobSize=1000",
  "PriorityFlags=NO_FAIR_TREE", "NodeName=n[1-2] CPUs=2 RealMemory=1000", "PartitionName=p Nodes=ALL Default=YES MaxTime=INFINITE", "",
].join("\n");

describe("the scheduler loop's views of jobs waiting for their begin time", () => {
  it("read as with them queued, and the pass at their begin time starts them", async () => {
    const c = cluster(CONF);
    c.run(submit(spec({ ntasks: 2, timeLimitMin: 100 }), 10, ALICE)); // 1: runs on one node
    c.run(submit(spec({ ntasks: 2, timeLimitMin: 100 }), 10, ROOT)); // 2: runs on the other
    c.run({ v: 1, type: "startJobs", at: 20, decisions: schedule(c.state, 20).decisions });
    c.run({ v: 1, type: "jobEnded", at: 200, jobId: 2, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" }); // root's usage stops growing, alice's does not
    c.run(submit(spec({ ntasks: 1, timeLimitMin: 5, beginTime: 1500 }), 300, ALICE)); // 3: waits for its begin time
    c.run(submit(spec({ ntasks: 1, timeLimitMin: 5, beginTime: 5000, nice: 10 }), 300, ROOT)); // 4: too
    c.run(submit(spec({ ntasks: 1, timeLimitMin: 5, beginTime: 5000, hold: true }), 300, ROOT)); // 5: held
    expect(c.state.jobs.get(1)?.info.state).toBe("RUNNING");
    const at = { now: 1000 };
    const fast = loopOn(c.state, at, false);
    const ref = loopOn(c.state, at, true);
    const pending = (): number[] => [...c.state.jobs.values()].filter((j) => j.info.state === "PENDING").map((j) => j.info.jobId);
    const expectSame = (): void => {
      for (const id of pending()) {
        expect([id, fast.loop.reasonOf(id)]).toEqual([id, ref.loop.reasonOf(id)]);
        if (id !== 5) expect([id, fast.loop.priorityOf(id)]).toEqual([id, ref.loop.priorityOf(id)]); // a held job: none against the reference's 0
      }
    };
    await fast.pass();
    await ref.pass();
    expect(pending().map((id) => fast.loop.reasonOf(id))).toEqual(["BeginTime", "BeginTime", "JobHeldUser"]);
    expect(fast.loop.priorityOf(3)?.priority).toBeGreaterThan(0);
    expectSame();
    // submitted after the pass: neither loop has anything to say of it yet (the views read its record)
    c.run(submit(spec({ ntasks: 1, timeLimitMin: 5, beginTime: 9000 }), 1100, ALICE)); // 6
    expect(fast.loop.reasonOf(6)).toBeUndefined();
    expect(fast.loop.priorityOf(6)).toBeUndefined();
    expectSame();
    // time alone: alice's usage grows, fair share moves every left-out job's priority
    for (const now of [1200, 1499, 1500]) {
      at.now = now;
      const before = { fast: fast.seen.viewsChanged, ref: ref.seen.viewsChanged };
      await fast.pass();
      await ref.pass();
      if (ref.seen.viewsChanged > before.ref) expect(fast.seen.viewsChanged).toBeGreaterThan(before.fast);
      expectSame();
    }
    expect(ref.seen.viewsChanged).toBeGreaterThan(2);
    // job 3's begin time came with the pass at 1500: it started then, not before
    expect(fast.seen.started).toEqual([3]);
    expect(ref.seen.started).toEqual([3]);
  });

  it("under priority/basic a command that changes nothing they show leaves the listing cache as the reference does", async () => {
    const c = cluster("ClusterName=t\nNodeName=n1 CPUs=2 RealMemory=1000\nPartitionName=p Nodes=ALL Default=YES MaxTime=INFINITE\n");
    c.run(submit(spec({ ntasks: 1, timeLimitMin: 5, beginTime: 5000 }), 300, ALICE));
    c.run(submit(spec({ ntasks: 1, timeLimitMin: 5, beginTime: 5000 }), 300, ROOT));
    const at = { now: 1000 };
    const fast = loopOn(c.state, at, false);
    const ref = loopOn(c.state, at, true);
    await fast.pass();
    await ref.pass();
    c.run({ v: 1, type: "updateJob", at: 1001, jobIds: ["2"], action: "update", fields: { comment: "x" }, by: ROOT });
    at.now = 1002;
    const before = { fast: fast.seen.viewsChanged, ref: ref.seen.viewsChanged };
    await fast.pass();
    await ref.pass();
    expect(ref.seen.viewsChanged - before.ref).toBe(0);
    expect(fast.seen.viewsChanged - before.fast).toBe(0);
    for (const id of [1, 2]) expect([fast.loop.reasonOf(id), fast.loop.priorityOf(id)]).toEqual([ref.loop.reasonOf(id), ref.loop.priorityOf(id)]);
  });
});
