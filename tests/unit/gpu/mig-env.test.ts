/**
 * Visible-device variables for MIG instances: the unique id (MIG UUID) stands in
 * for the index, as Slurm's local list does; SLURM_*_GPUS keep node-wide indices;
 * ConstrainDevices renumbers only the index entries.
 */
import { describe, expect, it } from "vitest";
import { listedIndices, renumberVisible, withGpuUniqueIds } from "../../../src/compat/gpu-unique-ids.ts";

const IDS = ["MIG-aaaa", "MIG-bbbb", "MIG-cccc", "", "", ""];

describe("MIG unique ids in the visible-device variables", () => {
  it("replaces the entries of MIG units and keeps whole GPUs' indices", () => {
    const env = { CUDA_VISIBLE_DEVICES: "1,2,4", ROCR_VISIBLE_DEVICES: "1,2,4", SLURM_JOB_GPUS: "1,2,4", PATH: "/bin" };
    expect(withGpuUniqueIds(env, [1, 2, 4], IDS)).toEqual({
      CUDA_VISIBLE_DEVICES: "MIG-bbbb,MIG-cccc,4", ROCR_VISIBLE_DEVICES: "MIG-bbbb,MIG-cccc,4", SLURM_JOB_GPUS: "1,2,4", PATH: "/bin",
    });
  });

  it("maps positions, so an already renumbered batch list is named right too", () => {
    expect(withGpuUniqueIds({ CUDA_VISIBLE_DEVICES: "0,1" }, [0, 2], IDS).CUDA_VISIBLE_DEVICES).toBe("MIG-aaaa,MIG-cccc");
  });

  it("leaves nodes without unique ids, and lists of another length, unchanged", () => {
    const env = { CUDA_VISIBLE_DEVICES: "3,4" };
    expect(withGpuUniqueIds(env, [3, 4], IDS)).toBe(env);
    expect(withGpuUniqueIds({ CUDA_VISIBLE_DEVICES: "0" }, [0, 1], IDS).CUDA_VISIBLE_DEVICES).toBe("0");
  });

  it("renumbers index entries by position and keeps unique ids", () => {
    expect(renumberVisible({ CUDA_VISIBLE_DEVICES: "MIG-bbbb,4,5", GPU_DEVICE_ORDINAL: "4,5" })).toEqual({
      CUDA_VISIBLE_DEVICES: "MIG-bbbb,1,2", GPU_DEVICE_ORDINAL: "0,1",
    });
    expect(listedIndices("0,3")).toEqual([0, 3]);
    expect(listedIndices("MIG-x,3")).toBeUndefined();
  });
});
