/** `scontrol -d show job`: the per-node allocation lines carry the CPU ids the controller chose. */
import { describe, expect, it } from "vitest";
import { formatJobRecord } from "../../../src/compat/format/scontrol-show-job.ts";
import { emptyJobInfo } from "../../../src/sched/model/records.ts";

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
    expect(text).toContain("\n   JOB_GRES=gpu:mi300x:2\n     Nodes=n1 CPU_IDs=0-1,8 Mem=768 GRES=gpu:mi300x:2(IDX:0-1)\n     Nodes=n2 CPU_IDs=4-5 Mem=512 GRES=gpu:mi300x:2(IDX:2-3)\n");
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
});
