/** `scontrol -d show job`: the per-node allocation lines carry the CPU ids the controller chose. */
import { describe, expect, it } from "vitest";
import { formatJobRecord, nodeGpuTypes } from "../../../src/compat/format/scontrol-show-job.ts";
import { heldGpuType } from "../../../src/compat/gpu-types.ts";
import { emptyJobInfo } from "../../../src/sched/model/records.ts";
import { scontrolMain } from "../../../src/cli/scontrol.ts";
import { fakePort, makeNode } from "./helpers.ts";

describe("scontrol -d show job", () => {
  it("prints Nodes=, CPU_IDs= (the chosen ids), Mem= and GRES= with type and index ranges", () => {
    const job = {
      ...emptyJobInfo(), jobId: 7, state: "RUNNING", nodelist: "n[1-2]", numNodes: 2, tresPerNode: "gres/gpu:mi300x:2",
      alloc: [
        { node: "n1", cpus: 3, memMib: 768, gpuIndices: [0, 1], tasks: 3, cpuIds: "0-1,8" },
        { node: "n2", cpus: 2, memMib: 512, gpuIndices: [2, 3], tasks: 2, cpuIds: "4-5" },
      ],
    };
    const text = formatJobRecord(job, { now: 100, oneLiner: false, detail: true });
    // JOB_GRES counts what all nodes hold (oracle 22.05: -N2 --gres=gpu:mi300x:2 shows JOB_GRES=gpu:mi300x:4)
    expect(text).toContain("\n   JOB_GRES=gpu:mi300x:4\n     Nodes=n1 CPU_IDs=0-1,8 Mem=768 GRES=gpu:mi300x:2(IDX:0-1)\n     Nodes=n2 CPU_IDs=4-5 Mem=512 GRES=gpu:mi300x:2(IDX:2-3)\n");
  });

  it("names the GPUs held by their node's type when the request named none (oracle 22.05: --gpus-per-node=1, --gpus=3 on mi300x nodes)", () => {
    const types = nodeGpuTypes([{ name: "n3", gres: "gpu:mi300x:8(S:0-1)" }, { name: "n4", gres: "gpu:mi300x:8" }, { name: "n5", gres: "gpu:4" }, { name: "n1", gres: "" }]);
    expect([...types].map(([n, t]) => [n, t.length, t[0]])).toEqual([["n3", 8, "mi300x"], ["n4", 8, "mi300x"], ["n5", 4, ""]]);
    const gpuTypeOf = (node: string, held: readonly number[]) => heldGpuType(types.get(node), held);
    // a node of two types: the type of the indices held, none when they are of both
    const mixed = nodeGpuTypes([{ name: "m", gres: "gpu:a100:2,gpu:v100:2" }]).get("m");
    expect([heldGpuType(mixed, [2, 3]), heldGpuType(mixed, [0]), heldGpuType(mixed, [1, 2])]).toEqual(["v100", "a100", undefined]);
    const perNode = {
      ...emptyJobInfo(), jobId: 9, state: "RUNNING", nodelist: "n[3-4]", numNodes: 2, tresPerNode: "gres/gpu:1",
      alloc: [
        { node: "n3", cpus: 1, memMib: 256, gpuIndices: [3], tasks: 1, cpuIds: "2" },
        { node: "n4", cpus: 1, memMib: 256, gpuIndices: [0], tasks: 1, cpuIds: "0" },
      ],
    };
    expect(formatJobRecord(perNode, { now: 100, oneLiner: false, detail: true, gpuTypeOf })).toContain(
      "\n   JOB_GRES=gpu:mi300x:2\n     Nodes=n3 CPU_IDs=2 Mem=256 GRES=gpu:mi300x:1(IDX:3)\n     Nodes=n4 CPU_IDs=0 Mem=256 GRES=gpu:mi300x:1(IDX:0)\n",
    );
    const perJob = { ...perNode, tresPerNode: "", tresPerJob: "gres/gpu:3", alloc: [{ ...perNode.alloc[0]!, gpuIndices: [4, 5] }, perNode.alloc[1]!] };
    expect(formatJobRecord(perJob, { now: 100, oneLiner: false, detail: true, gpuTypeOf })).toContain("\n   JOB_GRES=gpu:mi300x:3\n");
    // a count of 0 holds nothing; untyped nodes show untyped GPUs; without the node listing, the request's type
    const zero = { ...perNode, tresPerNode: "gres/gpu:1,gres/tmpfs:0", alloc: [{ ...perNode.alloc[0]!, node: "n5" }] };
    expect(formatJobRecord(zero, { now: 100, oneLiner: false, detail: true, gpuTypeOf })).toContain("\n   JOB_GRES=gpu:1\n     Nodes=n5 CPU_IDs=2 Mem=256 GRES=gpu:1(IDX:3)\n");
    expect(formatJobRecord(perNode, { now: 100, oneLiner: false, detail: true })).toContain("\n   JOB_GRES=gpu:2\n");
  });

  it("shows the first ids for records from before the ids were kept, and an empty GRES= without GPUs", () => {
    const job = { ...emptyJobInfo(), jobId: 8, state: "RUNNING", nodelist: "n1", numNodes: 1, alloc: [{ node: "n1", cpus: 2, memMib: 100, gpuIndices: [], tasks: 1 }] };
    expect(formatJobRecord(job, { now: 100, oneLiner: false, detail: true })).toContain("Nodes=n1 CPU_IDs=0-1 Mem=100 GRES=\n");
  });

  it("a run of nodes with the same CPU ids, memory and GPUs shares one line, as Slurm groups them", () => {
    const one = (node: string, cpuIds: string, memMib: number) => ({ node, cpus: 1, memMib, gpuIndices: [], tasks: 1, cpuIds });
    const job = {
      ...emptyJobInfo(), jobId: 9, state: "RUNNING", nodelist: "n[1-4]", numNodes: 4,
      alloc: [{ ...one("n1", "0-1", 512), cpus: 2 }, one("n2", "0", 256), one("n3", "0", 256), one("n4", "1", 256)],
    };
    const text = formatJobRecord(job, { now: 100, oneLiner: false, detail: true });
    expect(text).toContain("\n     Nodes=n1 CPU_IDs=0-1 Mem=512 GRES=\n     Nodes=n[2-3] CPU_IDs=0 Mem=256 GRES=\n     Nodes=n4 CPU_IDs=1 Mem=256 GRES=\n");
  });

  it("scontrol -d asks for the nodes only when a shown job holds GPUs, and names their type", async () => {
    const job = {
      ...emptyJobInfo(), jobId: 9, state: "RUNNING", nodelist: "n3", numNodes: 1, tresPerNode: "gres/gpu:1",
      alloc: [{ node: "n3", cpus: 1, memMib: 256, gpuIndices: [2], tasks: 1, cpuIds: "1" }],
    };
    let asked = 0;
    const { port } = fakePort({ jobs: [job], nodes: [makeNode({ name: "n3", gres: "gpu:mi300x:8" })], now: 100 });
    const listNodes = port.ctl.listNodes.bind(port.ctl);
    port.ctl.listNodes = async (req) => {
      asked++;
      return listNodes(req);
    };
    const detailed = await scontrolMain(["-d", "show", "job", "9"], port);
    expect(detailed.stdout).toContain("\n   JOB_GRES=gpu:mi300x:1\n     Nodes=n3 CPU_IDs=1 Mem=256 GRES=gpu:mi300x:1(IDX:2)\n");
    expect(asked).toBe(1);
    await scontrolMain(["show", "job", "9"], port);
    expect(asked).toBe(1);
    // a job started since the type is recorded in its allocation: no listing
    const recorded = { ...job, jobId: 10, alloc: [{ ...job.alloc[0]!, gpuType: "mi300x" }] };
    const second = fakePort({ jobs: [recorded], nodes: [], now: 100 });
    second.port.ctl.listNodes = async () => {
      throw new Error("nodes listed");
    };
    expect((await scontrolMain(["-d", "show", "job", "10"], second.port)).stdout).toContain("\n   JOB_GRES=gpu:mi300x:1\n     Nodes=n3 CPU_IDs=1 Mem=256 GRES=gpu:mi300x:1(IDX:2)\n");
  });
});
