/**
 * PreemptMode=SUSPEND through the pure core: the victim is SUSPENDED (SIGSTOP),
 * its CPUs/GPUs go to the preemptor, which starts in the same command, its
 * memory stays charged; when the preemptor ends the victim is resumed
 * (SIGCONT) and the time it spent suspended is added to its end time.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { planPreemption } from "../../../src/sched/plan/preempt.ts";
import { ALICE, ROOT, cluster, spec, submit } from "../sched/builders.ts";

const CONF = `ClusterName=p
DefMemPerCPU=100
PreemptType=preempt/partition_prio
PreemptMode=SUSPEND
NodeName=n1 CPUs=4 RealMemory=4000
PartitionName=low Nodes=n1 Default=YES PriorityTier=1
PartitionName=high Nodes=n1 PriorityTier=2
`;

function pass(c: ReturnType<typeof cluster>, now: number) {
  const r = schedule(c.state, now);
  if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at: now, decisions: r.decisions });
  const plan = planPreemption(c.state, r.reasons, r.priorities);
  const applied = plan === undefined ? undefined : c.run({ v: 1, type: "preempt", at: now, ...plan });
  return { r, plan, applied };
}

describe("PreemptMode=SUSPEND", () => {
  it("suspends the victim, starts the preemptor on its CPUs with its memory kept, resumes it afterwards", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ ntasks: 4, memPerNodeMib: 1000, timeLimitMin: 60 }), 10));
    pass(c, 20);
    const victim = c.state.jobs.get(1)!;
    expect(victim.info.state).toBe("RUNNING");
    c.run(submit(spec({ partition: "high", ntasks: 4, memPerNodeMib: 2000, timeLimitMin: 10 }), 30));
    const { plan, applied } = pass(c, 40);
    expect(plan?.victims).toEqual([{ jobId: 1, mode: "SUSPEND", graceSec: 0 }]);
    expect(plan?.start?.jobId).toBe(2);
    expect(applied?.events).toContainEqual({ type: "signalJob", jobId: 1, nodes: ["n1"], signal: 19, reason: "", batchOnly: false });
    expect(applied?.events).toContainEqual({ type: "launchBatch", jobId: 2 });
    expect(victim.info.state).toBe("SUSPENDED");
    expect(c.state.jobs.get(2)?.info.state).toBe("RUNNING");
    const node = c.state.nodes.get("n1")!.info;
    expect([node.allocCpus, node.allocMemoryMib]).toEqual([4, 3000]);
    // Nothing else is preempted or started while the preemptor runs.
    c.run(submit(spec({ ntasks: 1, memPerNodeMib: 100 }), 41));
    expect(pass(c, 42).plan).toBeUndefined();
    expect(c.state.jobs.get(3)?.info.state).toBe("PENDING");
    // The preemptor ends: the victim comes back first (the suspended job's claim is older).
    const end = c.run({ v: 1, type: "jobEnded", at: 100, jobId: 2, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" });
    expect(end.events).toContainEqual({ type: "signalJob", jobId: 1, nodes: ["n1"], signal: 18, reason: "", batchOnly: false });
    expect(victim.info.state).toBe("RUNNING");
    expect(victim.suspendedSec).toBe(60);
    expect(victim.info.endTime).toBe(20 + 60 + 3600);
    expect([node.allocCpus, node.allocMemoryMib]).toEqual([4, 1000]);
    pass(c, 101);
    expect(c.state.jobs.get(3)?.info.state).toBe("PENDING");
    // The resumed job ends: everything is released.
    c.run({ v: 1, type: "jobEnded", at: 200, jobId: 1, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" });
    expect([node.allocCpus, node.allocMemoryMib]).toEqual([0, 0]);
  });

  it("does not suspend when the victim's kept memory leaves too little for the preemptor", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ ntasks: 4, memPerNodeMib: 2000, timeLimitMin: 60 }), 10));
    pass(c, 20);
    c.run(submit(spec({ partition: "high", ntasks: 1, memPerNodeMib: 2500, timeLimitMin: 10 }), 30));
    expect(pass(c, 40).plan).toBeUndefined();
    expect(c.state.jobs.get(1)?.info.state).toBe("RUNNING");
  });

  it("a suspended job that is cancelled releases only its memory (its CPUs are the preemptor's)", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ ntasks: 4, memPerNodeMib: 1000, timeLimitMin: 60 }), 10));
    pass(c, 20);
    c.run(submit(spec({ partition: "high", ntasks: 4, memPerNodeMib: 1000, timeLimitMin: 10 }), 30));
    pass(c, 40);
    expect(c.state.jobs.get(1)?.info.state).toBe("SUSPENDED");
    c.run({ v: 1, type: "jobEnded", at: 50, jobId: 1, exitCode: 0, exitSignal: 9, outcome: "CANCELLED" });
    const node = c.state.nodes.get("n1")!.info;
    expect([node.allocCpus, node.allocMemoryMib]).toEqual([4, 1000]);
    expect(c.state.jobs.get(2)?.info.state).toBe("RUNNING");
  });

  it("scontrol suspend/resume of a job not started or ended says so (oracle 22.05)", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ ntasks: 2, hold: true }), 10));
    c.run(submit(spec({ ntasks: 2 }), 10));
    pass(c, 20);
    c.run({ v: 1, type: "jobEnded", at: 30, jobId: 2, exitCode: 0, exitSignal: 0, outcome: "" });
    const act = (action: string, id: string) => c.run({ v: 1, type: "updateJob", at: 40, jobIds: [id], action, fields: {}, by: ROOT }).items[0];
    for (const action of ["suspend", "resume"]) {
      expect(act(action, "1")).toMatchObject({ error: "Job is pending execution", errorCode: 2024 });
      expect(act(action, "2")).toMatchObject({ error: "Job/step already completing or completed", errorCode: 2021 });
    }
  });

  it("scontrol suspend/resume: administrators only; the job keeps all its resources; suspended time is not charged", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ ntasks: 2, memPerNodeMib: 500, timeLimitMin: 60 }), 10, ALICE));
    pass(c, 20);
    const job = c.state.jobs.get(1)!;
    const act = (action: string, at: number, by = ROOT) => c.run({ v: 1, type: "updateJob", at, jobIds: ["1"], action, fields: {}, by });
    expect(act("suspend", 30, ALICE).items[0]?.error).toBe("Access/permission denied");
    expect(act("resume", 30).items[0]).toMatchObject({ error: "Job is not suspended", errorCode: 2087 });
    const s1 = act("suspend", 30);
    expect(s1.items[0]?.error).toBe("");
    expect(s1.events).toEqual([{ type: "signalJob", jobId: 1, nodes: ["n1"], signal: 19, reason: "", batchOnly: false }]);
    expect(job.info.state).toBe("SUSPENDED");
    expect(act("suspend", 31).items[0]).toMatchObject({ error: "Job is not running", errorCode: 2085 });
    const node = c.state.nodes.get("n1")!.info;
    expect([node.allocCpus, node.allocMemoryMib]).toEqual([2, 500]);
    const r1 = act("resume", 90);
    expect(r1.events).toEqual([{ type: "signalJob", jobId: 1, nodes: ["n1"], signal: 18, reason: "", batchOnly: false }]);
    expect([job.info.state, job.suspendedSec, job.info.endTime]).toEqual(["RUNNING", 60, 20 + 60 + 3600]);
    // Run time before the suspension (10 s) and the resume time, from which squeue counts on.
    expect([job.info.preSusTime, job.info.suspendTime]).toEqual([10, 90]);
    expect([node.allocCpus, node.allocMemoryMib]).toEqual([2, 500]);
    c.run({ v: 1, type: "jobEnded", at: 200, jobId: 1, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" });
    expect([node.allocCpus, node.allocMemoryMib]).toEqual([0, 0]);
  });

  it("scontrol resume of a job suspended for a running preemptor is refused", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ ntasks: 4, memPerNodeMib: 1000, timeLimitMin: 60 }), 10));
    pass(c, 20);
    c.run(submit(spec({ partition: "high", ntasks: 4, memPerNodeMib: 1000, timeLimitMin: 10 }), 30));
    pass(c, 40);
    const r = c.run({ v: 1, type: "updateJob", at: 50, jobIds: ["1"], action: "resume", fields: {}, by: ROOT });
    expect(r.items[0]?.error).toBe("Requested operation is presently disabled");
    expect(c.state.jobs.get(1)?.info.state).toBe("SUSPENDED");
  });

  it("a node failure ends a suspended job on it too (NODE_FAIL), releasing its memory", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ ntasks: 4, memPerNodeMib: 1000, timeLimitMin: 60 }), 10));
    pass(c, 20);
    c.run(submit(spec({ partition: "high", ntasks: 4, memPerNodeMib: 1000, timeLimitMin: 10 }), 30));
    pass(c, 40);
    c.run({ v: 1, type: "nodeFail", at: 50, node: "n1", reason: "Not responding" });
    expect([c.state.jobs.get(1)?.info.state, c.state.jobs.get(2)?.info.state]).toEqual(["NODE_FAIL", "NODE_FAIL"]);
    const node = c.state.nodes.get("n1")!.info;
    expect([node.allocCpus, node.allocMemoryMib]).toEqual([0, 0]);
  });
});
