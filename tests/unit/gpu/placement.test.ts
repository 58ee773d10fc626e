/**
 * Topology-aware placement: GPU sets inside a node, node choice across nodes,
 * switch packing for multi-node jobs, and required nodes (-w) never dropped.
 */
import { describe, expect, it } from "vitest";
import { fitJob, withReleased, type NodeView } from "../../../src/sched/plan/fit-node.ts";
import type { ResourceRequest } from "../../../src/sched/plan/request.ts";
import { declaredLinks, parseGpuTopology, topologyFromLinks } from "../../../src/devices/gpu-topology.ts";
import { parseTopologyConf } from "../../../src/compat/conf/topology-conf.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { cluster, spec, submit } from "../sched/builders.ts";

function req(over: Partial<ResourceRequest> = {}): ResourceRequest {
  return {
    nodesMin: 1, nodesMax: 1, ntasks: 1, ntasksPerNode: 0, cpusPerTask: 1, mem: { kind: "node", mib: 100 },
    gpusPerNode: 0, gpusTotal: 0, gpusPerTask: 0, gpuType: "", exclusive: false, nodelist: [], exclude: [], features: [],
    ...over,
  };
}

function links(shape: string, count = 8) {
  const rows = declaredLinks(shape, count);
  if (typeof rows === "string") throw new Error(rows);
  return parseGpuTopology(topologyFromLinks(rows), count);
}

function view(name: string, over: Partial<NodeView> = {}): NodeView {
  return {
    name, cpus: 64, memMiB: 100_000, gpuCount: 8, gpuModel: "mi300x", features: [], freeCpus: 64, freeMemMiB: 100_000,
    freeGpus: [0, 1, 2, 3, 4, 5, 6, 7], idle: true, usable: true, ...over,
  };
}

describe("GPU choice inside a node", () => {
  it("keeps a 4-GPU job inside one hive instead of taking the lowest free indices", () => {
    const node = view("g1", { freeGpus: [2, 3, 4, 5, 6, 7], gpuLinks: links("hives:4"), idle: false });
    expect(fitJob(req({ gpusPerNode: 4 }), [node], "now")?.[0]?.gpuIndices).toEqual([4, 5, 6, 7]);
    // Without a topology Slurm's rule (lowest free indices) holds.
    expect(fitJob(req({ gpusPerNode: 4 }), [{ ...node, gpuLinks: undefined }], "now")?.[0]?.gpuIndices).toEqual([2, 3, 4, 5]);
  });

  it("picks an NVLink pair over two PCIe-only neighbours", () => {
    const node = view("g1", { freeGpus: [1, 2, 4, 5], gpuLinks: links("pairs"), idle: false });
    expect(fitJob(req({ gpusPerNode: 2 }), [node], "now")?.[0]?.gpuIndices).toEqual([4, 5]);
  });
});

describe("node choice for GPU jobs", () => {
  it("puts a small job on the partly used node and leaves the empty fabric whole", () => {
    const full = view("g1", { gpuLinks: links("xgmi") });
    const partial = view("g2", { freeGpus: [2, 3, 4, 5, 6, 7], gpuLinks: links("xgmi"), idle: false });
    expect(fitJob(req({ gpusPerNode: 2 }), [full, partial], "now")?.[0]?.node).toBe("g2");
  });

  it("prefers a node where the GPUs are connected over one where they are not", () => {
    const broken = view("g1", { freeGpus: [1, 2], gpuLinks: links("pairs"), idle: false });
    const whole = view("g2", { gpuLinks: links("pairs") });
    const got = fitJob(req({ gpusPerNode: 2 }), [broken, whole], "now")?.[0];
    expect(got).toMatchObject({ node: "g2", gpuIndices: [0, 1] });
  });

  it("places a backfill candidate on the resources a running job will release", () => {
    const busy = view("g1", { freeGpus: [], idle: false, freeCpus: 0 });
    expect(fitJob(req({ gpusPerNode: 8 }), [busy], "now")).toBeUndefined();
    const later = withReleased([busy], [{ node: "g1", cpus: 64, memMib: 0, gpuIndices: [0, 1, 2, 3, 4, 5, 6, 7], tasks: 1 }]);
    expect(fitJob(req({ gpusPerNode: 8 }), later, "now")?.[0]?.gpuIndices).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});

describe("multi-node jobs and switches", () => {
  const conf = parseTopologyConf("SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[3-4]\nSwitchName=s3 Nodes=n[5-8]\nSwitchName=top Switches=s[1-3]\n");
  if (!conf.ok) throw new Error(conf.error.message);
  const topo = conf.value;
  const nodes = (busy: string[]) =>
    ["n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"].map((n) => view(n, busy.includes(n) ? { freeCpus: 0, idle: false } : {}));

  it("fits a 2-node job under one leaf switch, the tightest one", () => {
    const got = fitJob(req({ nodesMin: 2, nodesMax: 2, ntasks: 2, exclusive: true }), nodes(["n1"]), "now", topo);
    expect(got?.map((a) => a.node)).toEqual(["n3", "n4"]);
  });

  it("uses the larger leaf when the job needs it, and the top switch only when no leaf holds it", () => {
    const three = fitJob(req({ nodesMin: 3, nodesMax: 3, ntasks: 3, exclusive: true }), nodes([]), "now", topo);
    expect(three?.map((a) => a.node)).toEqual(["n5", "n6", "n7"]);
    const five = fitJob(req({ nodesMin: 5, nodesMax: 5, ntasks: 5, exclusive: true }), nodes([]), "now", topo);
    expect(five?.length).toBe(5);
  });

  it("with --switches=1 waits rather than span two leaves, until the wait is over", () => {
    const spread = nodes(["n1", "n3", "n5", "n6", "n7", "n8"]);
    const gang = req({ nodesMin: 2, nodesMax: 2, ntasks: 2, exclusive: true, switchesMax: 1 });
    expect(fitJob(gang, spread, "now", topo)).toBeUndefined();
    expect(fitJob({ ...gang, switchWaitOver: true }, spread, "now", topo)?.map((a) => a.node)).toEqual(["n2", "n4"]);
    expect(fitJob({ ...gang, switchesMax: 2 }, spread, "now", topo)?.length).toBe(2);
  });

  it("reads levels and blocks from topology.conf and rejects unknown switches", () => {
    expect(topo.groups.map((g) => `${g.name}:${g.level}`)).toEqual(["s1:0", "s2:0", "s3:0", "top:1"]);
    expect(topo.groups.at(-1)?.nodes.length).toBe(8);
    const blocks = parseTopologyConf("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockSizes=4,8\n");
    expect(blocks.ok && blocks.value.groups.map((g) => g.kind)).toEqual(["block", "block"]);
    const bad = parseTopologyConf("SwitchName=top Switches=s9\n");
    expect(bad.ok ? "" : bad.error.message).toBe("topology.conf line 1: unknown switch s9");
  });
});

describe("required nodes (-w)", () => {
  it("keeps a job pending with reason Resources when its required node is full", () => {
    const c = cluster();
    c.run(submit(spec({ nodelist: "n1", ntasks: 4 })));
    const first = schedule(c.state, 20);
    c.run({ v: 1, type: "startJobs", at: 20, decisions: first.decisions });
    expect(c.state.jobs.get(1)?.info.nodelist).toBe("n1");
    c.run(submit(spec({ nodelist: "n1" }), 30));
    const second = schedule(c.state, 40);
    expect(second.decisions).toEqual([]);
    expect(second.reasons.get(2)).toBe("Resources");
  });
});

describe("gang start", () => {
  it("starts a multi-node GPU job on all its nodes or on none (a stale decision is dropped whole)", () => {
    const c = cluster();
    c.run(submit(spec({ partition: "gpu", nodesMin: 2, nodesMax: 2, ntasks: 2, exclusive: true, gpusPerNode: "8" })));
    const gang = schedule(c.state, 20).decisions;
    expect(gang.map((d) => d.alloc.map((a) => a.node))).toEqual([["g1", "g2"]]);
    c.run(submit(spec({ partition: "gpu", nodelist: "g2", gpusPerNode: "1" }), 21));
    // Job 2 takes one GPU of g2 before the gang's decision is applied (as a second replica or a racing pass might).
    const other = { jobId: 2, arrayTaskId: c.state.jobs.get(2)!.info.arrayTaskId, alloc: [{ node: "g2", cpus: 1, memMib: 256, gpuIndices: [0], tasks: 1 }] };
    c.run({ v: 1, type: "startJobs", at: 22, decisions: [other] });
    expect(c.state.jobs.get(2)?.info.state).toBe("RUNNING");
    c.run({ v: 1, type: "startJobs", at: 23, decisions: gang });
    expect(c.state.jobs.get(1)?.info.state).toBe("PENDING");
    expect(c.state.nodes.get("g1")?.info.allocCpus).toBe(0);
    expect(c.state.nodes.get("g1")?.gpuByJob.size).toBe(0);
  });
});
