/**
 * --gpu-bind: which of a node's step GPUs each task sees, and the implicit
 * per_task binding of --gpus-per-task.
 */
import { describe, expect, it } from "vitest";
import { parseGpuBind, taskGpus } from "../../../src/compat/gpu-bind.ts";

const four = [4, 5, 6, 7];
const tasks = (bind: string, perTask = 0, n = 4) => Array.from({ length: n }, (_, k) => taskGpus(four, k, bind, perTask).join(","));

describe("taskGpus", () => {
  it("shows every step GPU without binding", () => {
    expect(tasks("", 0, 2)).toEqual(["4,5,6,7", "4,5,6,7"]);
    expect(tasks("none", 1, 2)).toEqual(["4,5,6,7", "4,5,6,7"]);
  });

  it("binds per task, implicitly for --gpus-per-task", () => {
    expect(tasks("", 1)).toEqual(["4", "5", "6", "7"]);
    expect(tasks("per_task:2", 0, 2)).toEqual(["4,5", "6,7"]);
  });

  it("shares GPUs with single:N and follows map_gpu / mask_gpu", () => {
    expect(tasks("single:2")).toEqual(["4", "4", "5", "5"]);
    expect(tasks("map_gpu:7,6")).toEqual(["7", "6", "7", "6"]);
    expect(tasks("mask_gpu:0x30,0xc0", 0, 2)).toEqual(["4,5", "6,7"]);
  });

  it("validates the option as typed", () => {
    expect(parseGpuBind("verbose,per_task:1")).toEqual({ ok: true, value: "per_task:1" });
    expect(parseGpuBind("closest").ok).toBe(true);
    const bad = parseGpuBind("sideways");
    // Slurm 22.05 names the TRES binding it keeps, and exits 255 (oracle, differential seeds 150, 255)
    expect(bad.ok ? undefined : bad.error).toMatchObject({ message: "Invalid --gpu-bind argument: gpu:sideways", exitCode: 255 });
    expect(parseGpuBind("single:0").ok).toBe(false);
  });
});
