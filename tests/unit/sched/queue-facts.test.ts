/**
 * The pass notes each queued job's facts while working out its priority (plan/queue-facts.ts) and
 * asks the records again only to try a job. The one fact that moves during a pass, an array
 * throttle's running count, is still asked in the pass: an array at its throttle behind a job
 * that blocks the partition waits for its throttle (JobArrayTaskLimit), not for Priority.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { ROOT, cluster, spec, submit } from "./builders.ts";

// no backfill: it would start the array's next task beside the blocked job
const CONF = `ClusterName=facts
SchedulerType=sched/builtin
DefMemPerCPU=100
NodeName=n1 CPUs=4 RealMemory=4000
PartitionName=p Nodes=n1 Default=YES MaxTime=INFINITE
`;

describe("queue facts", () => {
  it("an array at its throttle in a blocked partition waits for its throttle", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ array: "0-5%2", ntasks: 1 }), 10));
    const first = schedule(c.state, 11);
    expect(first.decisions.map((d) => d.arrayTaskId)).toEqual([0, 1]);
    c.run({ v: 1, type: "startJobs", at: 11, decisions: first.decisions });
    // a whole-node job put first: it cannot start (two CPUs are taken) and blocks the partition
    c.run(submit(spec({ ntasks: 4 }), 12));
    const big = [...c.state.jobs.values()].find((j) => j.info.numCpus === 4 && j.info.state === "PENDING")!;
    expect(c.run({ v: 1, type: "updateJob", at: 13, jobIds: [String(big.info.jobId)], action: "update", fields: { priority: "4294967000" }, by: ROOT }).error).toBe("");
    const meta = [...c.state.jobs.values()].find((j) => j.arrayPending.length > 0)!;
    const pass = schedule(c.state, 14);
    expect(pass.decisions).toEqual([]);
    expect(pass.reasons.get(big.info.jobId)).toBe("Resources");
    expect(pass.reasons.get(meta.info.jobId)).toBe("JobArrayTaskLimit");
  });

  it("below its throttle the same array waits behind the blocked partition (Priority)", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ array: "0-5%3", ntasks: 1 }), 10));
    const first = schedule(c.state, 11);
    c.run({ v: 1, type: "startJobs", at: 11, decisions: first.decisions.slice(0, 2) });
    c.run(submit(spec({ ntasks: 4 }), 12));
    const big = [...c.state.jobs.values()].find((j) => j.info.numCpus === 4 && j.info.state === "PENDING")!;
    c.run({ v: 1, type: "updateJob", at: 13, jobIds: [String(big.info.jobId)], action: "update", fields: { priority: "4294967000" }, by: ROOT });
    const meta = [...c.state.jobs.values()].find((j) => j.arrayPending.length > 0)!;
    expect(schedule(c.state, 14).reasons.get(meta.info.jobId)).toBe("Priority");
  });
});
