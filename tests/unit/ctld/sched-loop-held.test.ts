/**
 * The scheduler loop's views of held jobs (ctld/sched-loop.ts), which its pass leaves out of
 * the queue and its maps (schedule's omitHeld): each pending job reads the same reason as
 * with the held jobs queued (the reference loop, queueHeld), a held one its hold, or DeadLine
 * once its deadline passed; a held job has no priority to explain (sprio leaves it out, as
 * Slurm's does: oracle `sbatch --hold; sprio -j` finds no job), the others the reference's;
 * and nothing is read before a pass or after leadership is lost.
 */
import { describe, expect, it } from "vitest";
import { createSchedLoop } from "../../../src/ctld/sched-loop.ts";
import { newSchedCounters } from "../../../src/ctld/sched-stats.ts";
import type { Clock, TimerHandle } from "../../../src/lib/clock.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";
import { ALICE, ROOT, cluster, spec, submit } from "../sched/builders.ts";

const NOW = 1000;

function loopOn(state: ClusterState, queueHeld: boolean) {
  let due: (() => void) | undefined;
  const handle: TimerHandle = { id: 1 };
  const clock: Clock = {
    now: () => NOW * 1000, monotonicMs: () => 0, setTimeout: (fn) => ((due = fn), handle),
    setInterval: () => handle, setImmediate: () => handle, clear: () => (due = undefined),
  };
  const loop = createSchedLoop({
    state, clock, now: () => NOW, logger: { info() {}, warn() {}, error() {} } as never, counters: newSchedCounters(NOW),
    acting: () => true, diskFull: () => false, executeInternal: () => {}, viewsChanged: () => {},
    execute: () => new Promise(() => {}), queueHeld,
  });
  const pass = (): void => {
    loop.kick();
    const fn = due;
    due = undefined;
    fn?.();
  };
  return { loop, pass };
}

describe("the scheduler loop's views of held jobs", () => {
  it("read as with the held jobs queued: the hold (or DeadLine) as reason, no priority to explain", () => {
    const c = cluster(`${"ClusterName=t\nPriorityType=priority/multifactor\nPriorityWeightAge=1000\n"}NodeName=n1 CPUs=2 RealMemory=1000\nPartitionName=p Nodes=n1 Default=YES MaxTime=INFINITE\n`);
    c.run(submit(spec({ ntasks: 2, timeLimitMin: 10 }), 10, ALICE)); // starts, fills the node
    c.run(submit(spec({ ntasks: 1, timeLimitMin: 10 }), 20, ALICE)); // Resources
    c.run(submit(spec({ ntasks: 1, hold: true }), 30, ALICE)); // JobHeldUser
    c.run(submit(spec({ ntasks: 1 }), 40, ALICE));
    c.run({ v: 1, type: "updateJob", at: 50, jobIds: ["4"], action: "hold", fields: {}, by: ROOT }); // JobHeldAdmin
    c.run(submit(spec({ ntasks: 1, hold: true, timeLimitMin: 10, deadline: NOW + 60 }), 60, ALICE)); // DeadLine
    const fast = loopOn(c.state, false);
    const ref = loopOn(c.state, true);
    expect(fast.loop.reasonOf(3)).toBeUndefined(); // no pass yet: the views fall back to the record
    fast.pass();
    ref.pass();
    const pending = [...c.state.jobs.values()].filter((j) => j.info.state === "PENDING").map((j) => j.info.jobId);
    expect(pending).toEqual([1, 2, 3, 4, 5]);
    expect(pending.map((id) => fast.loop.reasonOf(id))).toEqual(pending.map((id) => ref.loop.reasonOf(id)));
    // job 1 starts in this pass (its start is not committed here), job 2 waits behind it
    expect(pending.map((id) => fast.loop.reasonOf(id))).toEqual([undefined, "Resources", "JobHeldUser", "JobHeldAdmin", "DeadLine"]);
    for (const id of [3, 4, 5]) {
      expect(fast.loop.priorityOf(id)).toBeUndefined();
      expect(ref.loop.priorityOf(id)?.priority).toBe(0);
    }
    expect(fast.loop.priorityOf(2)).toEqual(ref.loop.priorityOf(2));
    expect(fast.loop.priorityOf(2)?.priority).toBeGreaterThan(0);
    fast.loop.clearReasons();
    expect(fast.loop.reasonOf(3)).toBeUndefined();
  });
});
