/**
 * Several GPU types on one node (MIG profiles next to whole GPUs): what the node
 * registers, how typed requests are placed on it, and GresUsed per type.
 */
import { describe, expect, it } from "vitest";
import { nodeGpuFacts } from "../../../src/devices/node-gpus.ts";
import { discoverDevices } from "../../../src/devices/discover.ts";
import { parseGpuTopology } from "../../../src/devices/gpu-topology.ts";
import { pairQuality } from "../../../src/devices/link-matrix.ts";
import { gpuPool, gpuTypesOfGres, gpuTypesOfText } from "../../../src/compat/gpu-types.ts";
import { fitJob, type NodeView } from "../../../src/sched/plan/fit-node.ts";
import type { ResourceRequest } from "../../../src/sched/plan/request.ts";
import { refreshNodeState } from "../../../src/sched/model/resources.ts";
import { emptyNodeInfo } from "../../../src/sched/model/records.ts";
import { H100_MIG, fixtureRoot, nvidiaTexts } from "../devices/fixtures.ts";
import { gresForNode, parseGresConf } from "../../../src/compat/conf/gres-conf.ts";

function migFacts() {
  const inv = discoverDevices(fixtureRoot(H100_MIG), nvidiaTexts(H100_MIG));
  if (!inv.ok) throw new Error(inv.error.message);
  return nodeGpuFacts({ gpuCount: 10, gpuModel: "" }, undefined, inv.value);
}

function req(over: Partial<ResourceRequest> = {}): ResourceRequest {
  return {
    nodesMin: 1, nodesMax: 1, ntasks: 1, ntasksPerNode: 0, cpusPerTask: 1, mem: { kind: "node", mib: 100 },
    gpusPerNode: 0, gpusTotal: 0, gpusPerTask: 0, gpuType: "", exclusive: false, nodelist: [], exclude: [], features: [],
    ...over,
  };
}

function migView(over: Partial<NodeView> = {}): NodeView {
  const facts = migFacts();
  return {
    name: "h1", cpus: 224, memMiB: 1_000_000, gpuCount: facts.gpuCount, gpuModel: facts.gpuModel, features: [], freeCpus: 224,
    freeMemMiB: 1_000_000, freeGpus: Array.from({ length: facts.gpuCount }, (_, i) => i), idle: true, usable: true,
    gpuLinks: parseGpuTopology(facts.gpuTopology, facts.gpuCount), gpuTypes: gpuTypesOfGres(facts.gres, facts.gpuCount), ...over,
  };
}

describe("a MIG node registers every profile as its own type", () => {
  it("groups the units by type, MIG instances first (GPU 0), then the 7 whole H100s", () => {
    const facts = migFacts();
    expect(facts.gres).toBe("gpu:3g.40gb:1,gpu:2g.20gb:1,gpu:1g.10gb:1,gpu:h100:7");
    expect(facts.gpuTypes).toEqual(["3g.40gb", "2g.20gb", "1g.10gb", ...Array(7).fill("h100")]);
    expect(facts.warnings).toEqual([]);
    // Slurm's MultipleFiles for a MIG: the parent /dev/nvidia0, then the GPU-instance and compute-instance capabilities.
    expect(facts.gpuFiles.slice(0, 4)).toEqual([
      "/dev/nvidia0,/dev/nvidia-caps/nvidia-cap21,/dev/nvidia-caps/nvidia-cap22",
      "/dev/nvidia0,/dev/nvidia-caps/nvidia-cap30,/dev/nvidia-caps/nvidia-cap31",
      "/dev/nvidia0,/dev/nvidia-caps/nvidia-cap84,/dev/nvidia-caps/nvidia-cap85",
      "/dev/nvidia1",
    ]);
    // MIG units are named by their MIG UUID in CUDA_VISIBLE_DEVICES; whole GPUs by index.
    expect(facts.gpuUniqueIds.slice(0, 4)).toEqual([
      "MIG-f1f528f0-28a5-df33-7e16-c2ac63a88a6c", "MIG-1cd501df-38df-09a7-834c-8875ca0154c8", "MIG-611edc42-8923-2d53-a76a-8cf171698dd1", "",
    ]);
  });

  it("keeps NVLink between the whole GPUs and gives MIG units no fabric link", () => {
    const facts = migFacts();
    const m = parseGpuTopology(facts.gpuTopology, facts.gpuCount)!;
    expect(pairQuality(m, 3, 4)).toBeGreaterThan(400);
    expect(pairQuality(m, 0, 3)).toBe(0);
    expect(pairQuality(m, 0, 1)).toBe(0);
  });

  it("reads the types back from the gres text only when the counts add up", () => {
    expect(gpuTypesOfGres("gpu:a:1,gpu:b:2", 3)).toEqual(["a", "b", "b"]);
    expect(gpuTypesOfGres("gpu:a:1,gpu:b:2", 4)).toBeUndefined();
    expect(gpuTypesOfGres("gpu:2,nic:1", 2)).toEqual(["", ""]);
    expect(gpuTypesOfText("gpu:a:x")).toBeUndefined();
  });
});

describe("typed requests on a mixed node", () => {
  it("--gres=gpu:1g.10gb:1 takes the 1g.10gb instance, gpu:h100:2 two whole GPUs", () => {
    const node = migView();
    expect(fitJob(req({ gpusPerNode: 1, gpuType: "1g.10gb" }), [node], "now")?.[0]?.gpuIndices).toEqual([2]);
    expect(fitJob(req({ gpusPerNode: 1, gpuType: "3g.40gb" }), [node], "now")?.[0]?.gpuIndices).toEqual([0]);
    const h100 = fitJob(req({ gpusPerNode: 2, gpuType: "h100" }), [node], "now")?.[0]?.gpuIndices ?? [];
    expect(h100).toHaveLength(2);
    expect(h100.every((g) => g >= 3)).toBe(true);
  });

  it("a type the node lacks, or more of a type than it has, can never run there", () => {
    const node = migView();
    expect(fitJob(req({ gpusPerNode: 2, gpuType: "1g.10gb" }), [node], "ever")).toBeUndefined();
    expect(fitJob(req({ gpusPerNode: 1, gpuType: "a100" }), [node], "ever")).toBeUndefined();
    expect(fitJob(req({ gpusPerNode: 7, gpuType: "h100" }), [node], "ever")).toBeDefined();
    expect(fitJob(req({ gpusPerNode: 8, gpuType: "h100" }), [node], "ever")).toBeUndefined();
    expect(fitJob(req({ gpusPerTask: 1, ntasks: 2, gpuType: "h100" }), [node], "ever")?.[0]?.gpuIndices.every((g) => g >= 3)).toBe(true);
  });

  it("a busy instance makes its type wait while others still start", () => {
    const node = migView({ freeGpus: [0, 1, 3, 4, 5, 6, 7, 8, 9], idle: false });
    expect(fitJob(req({ gpusPerNode: 1, gpuType: "1g.10gb" }), [node], "now")).toBeUndefined();
    expect(fitJob(req({ gpusPerNode: 1, gpuType: "2g.20gb" }), [node], "now")?.[0]?.gpuIndices).toEqual([1]);
  });

  it("the pool of a single-type node is all or nothing", () => {
    const plain = { gpuCount: 4, gpuModel: "mi300x", freeGpus: [1, 3] };
    expect(gpuPool(plain, "", true)).toEqual([1, 3]);
    expect(gpuPool(plain, "mi300x", false)).toEqual([0, 1, 2, 3]);
    expect(gpuPool(plain, "h100", true)).toEqual([]);
  });
});

describe("GresUsed with several types", () => {
  it("lists every type with the node-wide indices it holds, N/A when none", () => {
    const info = { ...emptyNodeInfo("h1"), cpus: 8, gpuCount: 10, gpuModel: "3g.40gb", gres: migFacts().gres, state: "IDLE" };
    const node = { info, gpuByJob: new Map([[7, [2, 4, 5]]]), drain: false, down: false };
    refreshNodeState(node);
    expect(info.gresUsed).toBe("gpu:3g.40gb:0(IDX:N/A),gpu:2g.20gb:0(IDX:N/A),gpu:1g.10gb:1(IDX:2),gpu:h100:2(IDX:4-5)");
    const single = { info: { ...emptyNodeInfo("n1"), cpus: 8, gpuCount: 8, gpuModel: "mi300x", gres: "gpu:mi300x:8", state: "IDLE" }, gpuByJob: new Map([[1, [0, 1]]]), drain: false, down: false };
    refreshNodeState(single);
    expect(single.info.gresUsed).toBe("gpu:mi300x:2(IDX:0-1)");
  });
});

describe("several types declared in gres.conf", () => {
  it("groups the GPUs by type and carries their files and Links along", () => {
    const text = [
      "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia0 Links=-1,0,2",
      "NodeName=n1 Name=gpu Type=t4 File=/dev/nvidia1 Links=0,-1,0",
      "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia2 Links=2,0,-1",
    ].join("\n");
    const parsed = parseGresConf(text);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const gres = gresForNode(parsed.value, "n1");
    if (!gres.ok) throw new Error(gres.error.message);
    const facts = nodeGpuFacts({ gpuCount: 3, gpuModel: "" }, gres.value, undefined);
    expect(facts).toMatchObject({ gres: "gpu:a100:2,gpu:t4:1", gpuModel: "a100", gpuTypes: ["a100", "a100", "t4"], warnings: [] });
    expect(facts.gpuFiles).toEqual(["/dev/nvidia0", "/dev/nvidia2", "/dev/nvidia1"]);
    const m = parseGpuTopology(facts.gpuTopology, 3)!;
    // The two A100s (bonded NVLink) are now indices 0 and 1; the T4 (index 2) has no link to either.
    expect(pairQuality(m, 0, 1)).toBeGreaterThan(pairQuality(m, 0, 2));
    expect(pairQuality(m, 0, 2)).toBe(pairQuality(m, 1, 2));
  });
});
