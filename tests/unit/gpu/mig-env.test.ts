/**
 * Visible-device variables by the one rule (compat/visible-devices.ts): a MIG instance's
 * unique id (MIG UUID) stands in for its index, as Slurm's local list does; SLURM_*_GPUS keep
 * node-wide indices; ConstrainDevices (or a container) renumbers only the index entries; the
 * batch environment (built on the node) and a step's (localised on the node) agree.
 */
import { describe, expect, it } from "vitest";
import { listedIndices, localDeviceList, localizeVisibleDevices } from "../../../src/compat/visible-devices.ts";
import { buildBatchEnv } from "../../../src/compat/job-env.ts";
import { makeJob } from "../job-env/golden.ts";

const IDS = ["MIG-aaaa", "MIG-bbbb", "MIG-cccc", "", "", ""];

describe("visible-device lists", () => {
  it("names MIG units by their unique id and keeps whole GPUs' indices", () => {
    expect(localDeviceList([1, 2, 4], { constrain: false, uniqueIds: IDS })).toBe("MIG-bbbb,MIG-cccc,4");
    expect(localDeviceList([3, 4], { constrain: false, uniqueIds: IDS })).toBe("3,4");
  });

  it("renumbers index entries by position under ConstrainDevices and keeps unique ids", () => {
    expect(localDeviceList([1, 4, 5], { constrain: true, uniqueIds: IDS })).toBe("MIG-bbbb,1,2");
    expect(localDeviceList([3, 5], { constrain: true, uniqueIds: [] })).toBe("0,1");
  });

  it("localises a step's lists of node-wide indices and leaves SLURM_STEP_GPUS and other lists alone", () => {
    const env = { CUDA_VISIBLE_DEVICES: "1,2,4", ROCR_VISIBLE_DEVICES: "1,2,4", GPU_DEVICE_ORDINAL: "1,2,4", SLURM_STEP_GPUS: "1,2,4", PATH: "/bin" };
    expect(localizeVisibleDevices(env, { constrain: false, uniqueIds: IDS })).toEqual({
      CUDA_VISIBLE_DEVICES: "MIG-bbbb,MIG-cccc,4", ROCR_VISIBLE_DEVICES: "MIG-bbbb,MIG-cccc,4", GPU_DEVICE_ORDINAL: "MIG-bbbb,MIG-cccc,4", SLURM_STEP_GPUS: "1,2,4", PATH: "/bin",
    });
    expect(localizeVisibleDevices({ CUDA_VISIBLE_DEVICES: "4,5", ZE_AFFINITY_MASK: "4,5" }, { constrain: true, uniqueIds: [] })).toEqual({ CUDA_VISIBLE_DEVICES: "0,1", ZE_AFFINITY_MASK: "0,1" });
    // A list that is not made of indices (a user's own value) is not touched.
    const own = { CUDA_VISIBLE_DEVICES: "GPU-1234" };
    expect(localizeVisibleDevices(own, { constrain: true, uniqueIds: IDS })).toBe(own);
    expect(listedIndices("0,3")).toEqual([0, 3]);
    expect(listedIndices("MIG-x,3")).toBeUndefined();
  });

  it("gives a batch script the same list a step on the same GPUs gets", () => {
    const job = makeJob({ jobId: 7, alloc: [{ node: "n1", cpus: 1, memMib: 0, gpuIndices: [4, 1], tasks: 0 }] });
    for (const constrain of [false, true]) {
      const batch = buildBatchEnv(job, { clusterName: "c", nodeName: "n1", nodeIndex: 0, submitEnv: {}, confPath: "/x", gpuIndicesOnNode: [4, 1], constrainDevices: constrain, gpuUniqueIds: IDS });
      const step = localizeVisibleDevices({ CUDA_VISIBLE_DEVICES: "1,4" }, { constrain, uniqueIds: IDS });
      expect(batch.CUDA_VISIBLE_DEVICES).toBe(step.CUDA_VISIBLE_DEVICES);
      expect(batch.SLURM_JOB_GPUS).toBe("1,4");
    }
  });
});
