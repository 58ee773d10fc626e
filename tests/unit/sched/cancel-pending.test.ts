/**
 * A job cancelled while pending keeps why it was waiting (the oracle's scontrol and sacct
 * show Reason=JobHeldUser, BeginTime, Dependency after `scancel`), and a submitted job
 * records what accounting charges it to: the association and QOS ids (sacct AssocID,
 * QOSRAW) and whether its time limit was asked for (sacct Timelimit=Partition_Limit).
 * Found by the differential tester (tests/differential).
 */
import { describe, expect, it } from "vitest";
import { cluster, ROOT, spec, submit } from "./builders.ts";

const CONF = `ClusterName=t
NodeName=n[1-2] CPUs=4 RealMemory=4000
PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=INFINITE
`;

const ALL = { user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" };

describe("cancelling a pending job", () => {
  it("keeps its pending reason", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ name: "held", hold: true }), 10));
    c.run({ v: 1, type: "cancel", at: 20, filter: { ...ALL, jobIds: ["1"] }, signal: 0, batchOnly: false, by: ROOT });
    expect(c.state.jobs.get(1)?.info).toMatchObject({ state: "CANCELLED", reason: "JobHeldUser", endTime: 20, cancelledBy: "0" });
  });
});

describe("accounting's view of a submitted job", () => {
  it("marks a limit the job did not ask for, not one it did", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ name: "default" }), 10));
    c.run(submit(spec({ name: "asked", timeLimitMin: 7 }), 10));
    expect(c.state.jobs.get(1)?.info.timeLimitDefault).toBe(true);
    expect(c.state.jobs.get(2)?.info.timeLimitDefault).toBeUndefined();
  });
});

describe("the socket/core/thread request", () => {
  it("is kept in the job record as asked for (scontrol ReqB:S:C:T, squeue %z)", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ name: "sct", socketsPerNode: 1, coresPerSocket: 2, threadsPerCore: 1 }), 10));
    c.run(submit(spec({ name: "any" }), 10));
    expect(c.state.jobs.get(1)?.info).toMatchObject({ reqSocketsPerNode: 1, reqCoresPerSocket: 2, reqThreadsPerCore: 1 });
    expect(c.state.jobs.get(2)?.info.reqThreadsPerCore).toBeUndefined();
  });
});
