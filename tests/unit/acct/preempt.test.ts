/**
 * Preemption through the pure core: partition_prio and qos choose victims
 * (lowest priority, latest started first, only as many as needed), the
 * preempt command ends them by PreemptMode (REQUEUE: PENDING again with a
 * restart counted; CANCEL: PREEMPTED) with GraceTime as the kill wait, and the
 * preemptor starts once they are gone. Nothing is preempted with preempt/none.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { planPreemption } from "../../../src/sched/plan/preempt.ts";
import { ROOT, cluster, spec, submit } from "../sched/builders.ts";
import { acct } from "./helpers.ts";

const conf = (extra: string) => `ClusterName=p
DefMemPerCPU=100
${extra}
NodeName=n[1-2] CPUs=2 RealMemory=2000
PartitionName=low Nodes=n[1-2] Default=YES PriorityTier=1 GraceTime=7
PartitionName=high Nodes=n[1-2] PriorityTier=2
`;

function pass(c: ReturnType<typeof cluster>, now: number) {
  const r = schedule(c.state, now);
  if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at: now, decisions: r.decisions });
  const plan = planPreemption(c.state, r.reasons, r.priorities);
  const applied = plan === undefined ? undefined : c.run({ v: 1, type: "preempt", at: now, ...plan });
  return { r, plan, applied };
}

const ended = (c: ReturnType<typeof cluster>, jobId: number, at: number) =>
  c.run({ v: 1, type: "jobEnded", at, jobId, exitCode: 0, exitSignal: 15, outcome: "CANCELLED" });

describe("preemption", () => {
  it("partition_prio + REQUEUE: frees just enough, requeues the victim, then starts the preemptor", () => {
    const c = cluster(conf("PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE"));
    for (let i = 0; i < 4; i++) c.run(submit(spec({ timeLimitMin: 60 }), 10 + i));
    pass(c, 20);
    expect([1, 2, 3, 4].every((id) => c.state.jobs.get(id)?.info.state === "RUNNING")).toBe(true);
    c.run(submit(spec({ partition: "high", timeLimitMin: 10 }), 30));
    const { plan, applied } = pass(c, 40);
    // One CPU is needed: the latest started of the lowest priority (job 4) is enough.
    expect(plan?.victims).toEqual([{ jobId: 4, mode: "REQUEUE", graceSec: 7 }]);
    expect(applied?.events[0]).toMatchObject({ type: "signalJob", jobId: 4, reason: "REQUEUE" });
    expect(c.state.jobs.get(4)?.info.killWaitSec).toBe(7);
    // While the victim is ending, nothing more is preempted.
    expect(pass(c, 41).plan).toBeUndefined();
    ended(c, 4, 45);
    const victim = c.state.jobs.get(4)!.info;
    expect([victim.state, victim.restarts]).toEqual(["PENDING", 1]);
    pass(c, 46);
    expect(c.state.jobs.get(5)?.info.state).toBe("RUNNING");
    expect(c.state.jobs.get(4)?.info.state).toBe("PENDING");
  });

  it("qos + CANCEL: only QOS listed in Preempt are victims, and they end PREEMPTED", () => {
    const c = cluster(conf("PreemptType=preempt/qos\nPreemptMode=CANCEL\nPriorityType=priority/multifactor\nPriorityWeightQOS=1000"));
    c.run(acct({ action: "add", entity: "qos", names: ["scavenger"] }));
    c.run(acct({ action: "add", entity: "qos", names: ["urgent"], set: { preempt: "scavenger", priority: "10" } }));
    c.run(submit(spec({ ntasks: 2, timeLimitMin: 60 }), 10));
    c.run(submit(spec({ ntasks: 2, qos: "scavenger", timeLimitMin: 60 }), 11));
    pass(c, 20);
    c.run(submit(spec({ ntasks: 2, timeLimitMin: 10 }), 30));
    expect(pass(c, 40).plan).toBeUndefined();
    c.run(submit(spec({ ntasks: 2, qos: "urgent", timeLimitMin: 10 }), 50, ROOT));
    const { plan } = pass(c, 60);
    expect(plan?.victims.map((v) => [v.jobId, v.mode])).toEqual([[2, "CANCEL"]]);
    ended(c, 2, 62);
    expect(c.state.jobs.get(2)?.info.state).toBe("PREEMPTED");
    // The QOS factor puts the preemptor ahead of the older job of QOS normal.
    pass(c, 63);
    expect(c.state.jobs.get(4)?.info.state).toBe("RUNNING");
  });

  it("does nothing with preempt/none", () => {
    const c = cluster(conf(""));
    for (let i = 0; i < 4; i++) c.run(submit(spec({ timeLimitMin: 60 }), 10 + i));
    pass(c, 20);
    c.run(submit(spec({ partition: "high", timeLimitMin: 10 }), 30));
    expect(pass(c, 40).plan).toBeUndefined();
  });
});
