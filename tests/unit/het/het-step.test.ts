/**
 * srun A : B (a heterogeneous step): the command line split into components, each component's
 * place in the whole step, the per-component variables, and the split of an ordinary job's nodes.
 * Expected values are the 22.05 oracle's (compat/het-step.ts names the runs).
 */
import { describe, expect, it } from "vitest";
import { parseSrunArgs } from "../../../src/compat/options/interactive-args.ts";
import { hetStepEnv, hetStepNodeSlices, hetStepPlaces } from "../../../src/compat/het-step.ts";
import { emptyJobInfo } from "../../../src/sched/model/records.ts";

const ctx = { invoker: { cwd: "/tmp", hostname: "login" }, now: 0 };
const job = (jobId: number, offset: number, nodes: string[]) => ({
  ...emptyJobInfo(), jobId, hetJobId: 10, hetJobOffset: offset, account: "root", partition: "debug", qos: "normal",
  nodelist: nodes.join(","), numNodes: nodes.length, alloc: nodes.map((node) => ({ node, cpus: 1, tasks: 1, gpuIndices: [], memMib: 0 })),
});

describe("srun A : B parsing", () => {
  it("splits at each lone ':' into options + own command; later components start afresh but keep -J", () => {
    const r = parseSrunArgs(["-J", "x", "-N2", "-n2", "-l", "hostname", "-s", ":", "-n1", "env", "A=1"], {}, ctx);
    expect(r.ok && r.value.kind === "run").toBe(true);
    if (!r.ok || r.value.kind !== "run") return;
    expect(r.value.command).toEqual(["hostname", "-s"]);
    expect(r.value.hetCommands).toEqual([["env", "A=1"]]);
    expect([r.value.spec.nodesMin, r.value.spec.ntasks, r.value.spec.name]).toEqual([2, 2, "x"]);
    expect(r.value.het?.map((h) => [h.nodesMin, h.ntasks, h.name, h.argv])).toEqual([[0, 1, "x", ["env", "A=1"]]]);
  });

  it("a component without a command is srun's fatal error", () => {
    const r = parseSrunArgs(["-n1", ":", "-n1", "hostname"], {}, ctx);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toBe("No command given to execute.");
  });

  it("a ':' inside a word is the command's, and no ':' is an ordinary step", () => {
    const r = parseSrunArgs(["echo", "a:b"], {}, ctx);
    expect(r.ok && r.value.kind === "run" && r.value.het === undefined && r.value.command).toEqual(["echo", "a:b"]);
  });
});

describe("a het step's layout", () => {
  it("ranks run on over the components; node ids, lists and the job are the whole step's", () => {
    const places = hetStepPlaces([
      { job: job(10, 0, ["n1", "n2"]), shares: [{ node: "n1", tasks: 1 }, { node: "n2", tasks: 1 }] },
      { job: job(11, 1, ["n3"]), shares: [{ node: "n3", tasks: 1 }] },
    ]);
    expect(places.map((p) => p.taskOffset)).toEqual([0, 2]);
    const p = places[1];
    expect([p?.ntasks, p?.nodeNames, p?.tasksPerNode, p?.nodelist]).toEqual([3, ["n1", "n2", "n3"], [1, 1, 1], "n[1-3]"]);
    expect([p?.job.jobId, p?.job.nodelist, p?.job.numNodes, p?.job.alloc.length]).toEqual([10, "n[1-3]", 3, 3]);
  });

  it("the job's node list is the step's nodes, its CPUs every component's (oracle: n[1,3] and 1(x3))", () => {
    const [p] = hetStepPlaces([
      { job: job(10, 0, ["n1", "n2"]), shares: [{ node: "n1", tasks: 1 }] },
      { job: job(11, 1, ["n3"]), shares: [{ node: "n3", tasks: 1 }] },
    ]);
    expect([p?.job.nodelist, p?.job.numNodes, p?.job.alloc.map((a) => a.node)]).toEqual(["n[1,3]", 2, ["n1", "n2", "n3"]]);
  });

  it("components of one ordinary job on the same node count once, their tasks added", () => {
    const one = job(7, 0, ["n1", "n2"]);
    const places = hetStepPlaces([{ job: one, shares: [{ node: "n1", tasks: 2 }] }, { job: one, shares: [{ node: "n1", tasks: 1 }] }]);
    expect([places[1]?.taskOffset, places[1]?.nodeNames, places[1]?.tasksPerNode, places[1]?.job]).toEqual([2, ["n1"], [3], one]);
  });

  it("per-component variables (both spellings) only for a het job", () => {
    const env = hetStepEnv([job(10, 0, ["n1", "n2"]), job(11, 1, ["n3"])]);
    expect(env.SLURM_JOB_ID_HET_GROUP_1).toBe("11");
    expect(env.SLURM_JOB_NODELIST_PACK_GROUP_0).toBe("n1,n2");
    expect(env.SLURM_JOB_CPUS_PER_NODE_HET_GROUP_0).toBe("1(x2)");
    expect([env.SLURM_HET_SIZE, env.SLURM_PACK_SIZE]).toEqual(["2", "2"]);
    // a batch script's other copies are not a step's
    expect(Object.keys(env).some((k) => k.startsWith("SLURM_JOB_NAME") || k.startsWith("SLURM_JOB_NUM_NODES"))).toBe(false);
    expect(hetStepEnv([job(7, 0, ["n1"]), job(7, 0, ["n1"])])).toEqual({});
  });

  it("an ordinary job's nodes are taken in turn; Slurm's text when they run out", () => {
    expect(hetStepNodeSlices(["n1", "n2", "n3", "n4"], [2, 1])).toEqual([["n1", "n2"], ["n3"]]);
    expect(hetStepNodeSlices(["n1", "n2"], [2, 1])).toBe("Allocation failure of 1 nodes: job size of 2, already allocated 2 nodes to previous components.");
  });
});
