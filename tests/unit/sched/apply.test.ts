import { describe, expect, it } from "vitest";
import { apply } from "../../../src/sched/model/apply.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { ALICE, CONF, ROOT, cluster, spec, submit } from "./builders.ts";

const startPass = (c: ReturnType<typeof cluster>, at: number) => {
  const r = schedule(c.state, at);
  if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at, decisions: r.decisions });
  return r;
};

describe("apply: submission", () => {
  it("assigns increasing ids and rejects invalid partitions without using an id", () => {
    const c = cluster();
    expect(c.run(submit(spec())).ids).toEqual([1]);
    const bad = c.run(submit(spec({ partition: "nosuch" })));
    expect(bad.error).toBe("invalid partition specified: nosuch\nInvalid partition name specified");
    expect(c.run(submit(spec())).ids).toEqual([2]);
  });

  it("rejects requests no node can ever satisfy, naming memory when it is the cause", () => {
    const c = cluster();
    expect(c.run(submit(spec({ memPerNodeMib: 999_999 }))).error).toBe(
      "Memory specification can not be satisfied\nRequested node configuration is not available",
    );
    expect(c.run(submit(spec({ gresPerNode: [{ name: "gpu", type: "", count: 99 }] }))).error).toBe("Requested node configuration is not available");
    expect(c.run(submit(spec({ cpusPerTask: 64 }))).error).toBe(
      "CPU count per node can not be satisfied\nRequested node configuration is not available",
    );
    // --tmp beyond every node's TmpDisk (0 here), as the oracle refuses sbatch --tmp=10
    expect(c.run(submit(spec({ tmpMib: 10 }))).error).toBe(
      "Temporary disk specification can not be satisfied\nRequested node configuration is not available",
    );
    // sockets, cores or threads no node has (oracle: --sockets-per-node=4, --cores-per-socket=64, --threads-per-core=8)
    for (const over of [{ socketsPerNode: 4 }, { coresPerSocket: 64 }, { threadsPerCore: 8 }]) {
      expect(c.run(submit(spec(over))).error).toBe("Socket, core and/or thread specification can not be satisfied\nRequested node configuration is not available");
    }
    // each refusal is on record as a FAILED job, as in Slurm 22.05
    expect([...c.state.jobs.values()].map((j) => j.info.state)).toEqual(Array(7).fill("FAILED"));
  });

  it("queues a job larger than its partition under EnforcePartLimits=NO (PartitionConfig), rejects it under ALL", () => {
    const c = cluster();
    const nodes = c.run(submit(spec({ nodesMin: 7 })));
    const tasks = c.run(submit(spec({ ntasks: 100 })));
    expect([nodes.error, tasks.error]).toEqual(["", ""]);
    const [a, b] = [nodes.ids[0] ?? 0, tasks.ids[0] ?? 0].map((id) => c.state.jobs.get(id)?.info);
    // -n 100 over nodes of at most 8 CPUs: 13 nodes, as Slurm counts them
    expect([a?.numNodes, a?.reason, b?.numNodes, b?.reason]).toEqual([7, "PartitionConfig", 13, "PartitionConfig"]);
    const r = schedule(c.state, 10);
    expect(r.decisions).toEqual([]);
    expect([r.reasons.get(a?.jobId ?? 0), r.reasons.get(b?.jobId ?? 0)]).toEqual(["PartitionConfig", "PartitionConfig"]);
    const strict = cluster(`EnforcePartLimits=ALL\n${CONF}`);
    expect(strict.run(submit(spec({ nodesMin: 7 }))).error).toBe("Requested node configuration is not available");
    expect([...strict.state.jobs.values()].map((j) => j.info.state)).toEqual(["FAILED"]);
  });

  it("a submission refused for a node configuration no node has uses a job id and leaves a FAILED record", () => {
    const c = cluster();
    const r = c.run({ ...submit(spec({ interactive: true, gresPerNode: [{ name: "gpu", type: "", count: 99 }] })), at: 50 });
    expect(r.error).toBe("Requested node configuration is not available");
    c.run({ ...submit(spec({ memPerNodeMib: 999_999 })), at: 60 });
    const jobs = [...c.state.jobs.values()].map((j) => j.info);
    expect(jobs.map((j) => [j.state, j.exitCode, j.startTime, j.endTime, j.numCpus, j.batchFlag])).toEqual([
      ["FAILED", 1, 50, 50, 1, false],
      ["FAILED", 1, 60, 60, 1, true],
    ]);
    // other refusals (here an unknown partition) leave nothing
    c.run(submit(spec({ partition: "nosuch" })));
    expect(c.state.jobs.size).toBe(2);
  });

  it("shows --gpus alone as a per-job request even when it lands on one node; a pending --exclusive job counts a CPU per node", () => {
    const c = cluster();
    const [id] = c.run(submit(spec({ gpus: "1" }))).ids;
    expect(c.state.jobs.get(id ?? 0)?.info).toMatchObject({ tresPerNode: "", tresPerJob: "gres/gpu:1" });
    const [ex] = c.run(submit(spec({ exclusive: true, nodesMin: 2, nodesMax: 2 }))).ids;
    expect(c.state.jobs.get(ex ?? 0)?.info.numCpus).toBe(2);
  });

  it("applies the partition's default and maximum time", () => {
    const c = cluster();
    c.run(submit(spec({ partition: "gpu" })));
    expect(c.state.jobs.get(1)?.info.timeLimitMin).toBe(60);
    c.run(submit(spec()));
    expect(c.state.jobs.get(2)?.info.timeLimitMin).toBeUndefined();
  });
});

describe("apply: running", () => {
  it("starts jobs on free resources, frees them at the end, and records the batch step", () => {
    const c = cluster();
    c.run(submit(spec({ ntasks: 4 })));
    startPass(c, 20);
    const job = c.state.jobs.get(1)!;
    expect(job.info.state).toBe("RUNNING");
    expect(job.info.nodelist).toBe("n1");
    expect(c.state.nodes.get("n1")?.info.state).toBe("ALLOCATED");
    c.run({ v: 1, type: "jobEnded", at: 30, jobId: 1, exitCode: 0, exitSignal: 0, outcome: "" });
    expect(job.info.state).toBe("COMPLETED");
    expect(job.info.steps.map((s) => s.stepId)).toEqual([-5]);
    expect(c.state.nodes.get("n1")?.info.state).toBe("IDLE");
  });

  it("splits array elements off the meta record; the last one keeps the array id", () => {
    const c = cluster();
    c.run(submit(spec({ array: "1-3" })));
    startPass(c, 20);
    const byTask = [...c.state.jobs.values()].map((j) => [j.info.jobId, j.info.arrayTaskId]);
    expect(byTask.sort()).toEqual([
      [1, 3],
      [2, 1],
      [3, 2],
    ]);
    expect(c.state.nextJobId).toBe(4);
  });

  it("gives GPU jobs distinct device indices on the same node", () => {
    const c = cluster();
    const gpus = [{ name: "gpu", type: "mi300x", count: 2 }];
    c.run(submit(spec({ partition: "gpu", nodelist: "g1", gresPerNode: gpus })));
    c.run(submit(spec({ partition: "gpu", nodelist: "g1", gresPerNode: gpus })));
    startPass(c, 20);
    expect(c.state.jobs.get(1)?.info.alloc[0]?.gpuIndices).toEqual([0, 1]);
    expect(c.state.jobs.get(2)?.info.alloc[0]?.gpuIndices).toEqual([2, 3]);
    expect(c.state.nodes.get("g1")?.info.gresUsed).toBe("gpu:mi300x:4(IDX:0-3)");
  });

  it("a controller-requested end wins over the script's exit", () => {
    const c = cluster();
    c.run(submit(spec()));
    startPass(c, 20);
    const cancel = c.run({ v: 1, type: "cancel", at: 25, filter: { jobIds: ["1"], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" }, signal: 0, batchOnly: false, by: ROOT });
    expect(cancel.events.some((e) => e.type === "signalJob")).toBe(true);
    c.run({ v: 1, type: "jobEnded", at: 26, jobId: 1, exitCode: 0, exitSignal: 15, outcome: "CANCELLED" });
    expect(c.state.jobs.get(1)?.info.state).toBe("CANCELLED");
  });

  it("refuses a user's cancel of someone else's job", () => {
    const c = cluster();
    c.run(submit(spec()));
    const r = c.run({ v: 1, type: "cancel", at: 25, filter: { jobIds: ["1", "77"], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" }, signal: 0, batchOnly: false, by: ALICE });
    expect(r.items).toEqual([
      { id: "1", error: "Access/permission denied", errorCode: 2002 },
      { id: "77", error: "Invalid job id specified", errorCode: 2017 },
    ]);
    expect(c.state.jobs.get(1)?.info.state).toBe("PENDING");
  });

  it("ends the jobs of a failed node as NODE_FAIL and frees its resources", () => {
    const c = cluster();
    c.run(submit(spec({ nodesMin: 2 })));
    startPass(c, 20);
    const r = c.run({ v: 1, type: "nodeFail", at: 40, node: "n1", reason: "Not responding" });
    expect(c.state.jobs.get(1)?.info.state).toBe("NODE_FAIL");
    expect(r.events).toContainEqual(expect.objectContaining({ type: "signalJob", nodes: ["n2"] }));
    expect(c.state.nodes.get("n1")?.info.state).toBe("DOWN");
    expect(c.state.nodes.get("n2")?.info.state).toBe("IDLE");
  });
});

describe("apply: replay", () => {
  it("rebuilds an identical state from the command log", () => {
    const c = cluster();
    c.run(submit(spec({ array: "0-5%2" })));
    c.run(submit(spec({ hold: true })));
    startPass(c, 20);
    c.run({ v: 1, type: "jobEnded", at: 30, jobId: 2, exitCode: 1, exitSignal: 0, outcome: "" });
    startPass(c, 31);
    const fresh = cluster(undefined, false);
    for (const cmd of c.log) apply(fresh.state, cmd);
    expect(fresh.state).toEqual(c.state);
  });
});
