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
    expect(parseGpuBind("verbose,per_task:1")).toEqual({ ok: true, value: "verbose,per_task:1" });
    expect(parseGpuBind("closest").ok).toBe(true);
    const bad = parseGpuBind("sideways");
    // Slurm 22.05 names the TRES binding it keeps, and exits 255 (oracle, differential seeds 150, 255)
    expect(bad.ok ? undefined : bad.error).toMatchObject({ message: "Invalid --gpu-bind argument: gpu:sideways", exitCode: 255 });
  });

  // sbatch --hold --gpu-bind=VALUE on 22.05 (2026-12-05): accepted values are kept as typed
  // (scontrol's TresBind=gpu:VALUE); refusals print these lines, exit 255.
  const ORACLE: readonly (readonly [string, string[]])[] = [
    ["verbose,closest", []], ["closest,verbose", []], ["closest,foo", []], ["closestx", []], ["none,verbose", []], ["Closest", []],
    ["VERBOSE,closest", []], ["per_task:2,verbose", []], ["per_task:2x", []], ["per_task:", []], ["per_task:0", []], ["per_task:00", []],
    ["per_task:-0", []], ["per_task:+1", []], ["per_task:0abc", []], ["single:0", []], ["single:abc", []], ["single:0x", []], ["single:1,x", []],
    ["map_gpu:0,1", []], ["map_gpu:1*2", []], ["map_gpu:", []], ["map_gpu:0,,1", []], ["mask_gpu:ff,1", []], ["mask_gpu:*", []],
    ["mask_gpu:0x1*2", []], ["mask_gpu:AB", []], ["none;gpu:closest", []],
    ["verbose", ["Invalid --gpu-bind argument: gpu:verbose"]],
    ["quiet,closest", ["Invalid --gpu-bind argument: gpu:quiet,closest"]],
    ["verbose,verbose,closest", ["Invalid --gpu-bind argument: gpu:verbose,verbose,closest"]],
    ["GPU_BIND", ["Invalid --gpu-bind argument: gpu:GPU_BIND"]],
    ["per_task:-1", ["Invalid --gpu-bind argument: gpu:per_task:-1"]],
    ["single:-1", ["Invalid --gpu-bind argument: gpu:single:-1"]],
    ["closest;map_gpu:a", ["Invalid --gpu-bind argument: gpu:closest;map_gpu:a"]],
    ["map_gpu:0,verbose", ["Failed to validate verbose, offending character is v", "Invalid --gpu-bind argument: gpu:map_gpu:0,verbose"]],
    ["map_gpu:0x1f", ["Failed to validate 0x1f, offending character is x", "Invalid --gpu-bind argument: gpu:map_gpu:0x1f"]],
    ["map_gpu:1,b,c", ["Failed to validate b, offending character is b", "Invalid --gpu-bind argument: gpu:map_gpu:1,b,c"]],
    ["map_gpu:1-2", ["Failed to validate 1-2, offending character is -", "Invalid --gpu-bind argument: gpu:map_gpu:1-2"]],
    ["map_gpu: 1", ["Failed to validate  1, offending character is  ", "Invalid --gpu-bind argument: gpu:map_gpu: 1"]],
    ["map_gpu:1:2", ["Failed to validate 1:2, offending character is :", "Invalid --gpu-bind argument: gpu:map_gpu:1:2"]],
    ["mask_gpu:0xg", ["Failed to validate 0xg, offending character is g", "Invalid --gpu-bind argument: gpu:mask_gpu:0xg"]],
    ["mask_gpu:0X3", ["Failed to validate 0X3, offending character is X", "Invalid --gpu-bind argument: gpu:mask_gpu:0X3"]],
    ["verbose,map_gpu:a", ["Failed to validate a, offending character is a", "Invalid --gpu-bind argument: gpu:verbose,map_gpu:a"]],
  ];
  it.each(ORACLE)("answers --gpu-bind=%j as 22.05 does", (value, refusal) => {
    const r = parseGpuBind(value);
    if (refusal.length === 0) expect(r).toEqual({ ok: true, value });
    else expect(r.ok ? undefined : r.error).toMatchObject({ message: refusal.join("\n"), exitCode: 255 });
  });

  it("binds by the kept value's kind: verbose and trailing words do not change it", () => {
    expect(taskGpus([4, 5, 6, 7], 1, "verbose,per_task:2", 0)).toEqual([6, 7]);
    expect(taskGpus([4, 5, 6, 7], 1, "per_task:2,verbose", 0)).toEqual([6, 7]);
    expect(taskGpus([4, 5, 6, 7], 3, "Single:2", 0)).toEqual([5]);
    expect(taskGpus([4, 5, 6, 7], 1, "closest,verbose", 0)).toEqual([4, 5, 6, 7]);
  });
});
