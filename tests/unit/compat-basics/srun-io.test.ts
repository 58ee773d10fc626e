/**
 * srun -o/-e routing (compat/srun-io): all, none, one task id, or a filename
 * pattern expanded per task (x-outname-srun-task: `srun -n2 -o 'sr-%t.out'`).
 */
import { describe, expect, it } from "vitest";
import { inputTarget, streamTarget, taskTargets, type TaskIoContext } from "../../../src/compat/srun-io.ts";

const task = (taskId: number, over: Partial<TaskIoContext> = {}): TaskIoContext => ({
  jobId: 42, arrayJobId: 0, arrayTaskId: -1, jobName: "job", user: "alice", nodeName: "n2", nodeIndex: 1, taskId, stepId: 3, ...over,
});

describe("srun output routing", () => {
  it("all / none / a task id", () => {
    expect(streamTarget("", task(0), "/w")).toEqual({ kind: "terminal" });
    expect(streamTarget("all", task(0), "/w")).toEqual({ kind: "terminal" });
    expect(streamTarget("none", task(0), "/w")).toEqual({ kind: "discard" });
    expect(streamTarget("1", task(1), "/w")).toEqual({ kind: "terminal" });
    expect(streamTarget("1", task(0), "/w")).toEqual({ kind: "discard" });
  });

  it("patterns expand per task, relative to srun's directory", () => {
    expect(streamTarget("sr-%t.out", task(1), "/w")).toEqual({ kind: "file", path: "/w/sr-1.out" });
    expect(streamTarget("/o/%j.%s-%3t-%n-%N-%u-%x.out", task(7), "/w")).toEqual({ kind: "file", path: "/o/42.3-007-1-n2-alice-job.out" });
    expect(streamTarget("%J.out", task(0), "/w")).toEqual({ kind: "file", path: "/w/42.3.out" });
    expect(streamTarget("%A_%a.out", task(0, { arrayJobId: 40, arrayTaskId: 2 }), "/w")).toEqual({ kind: "file", path: "/w/40_2.out" });
  });

  it("stderr follows a -o file unless -e is given", () => {
    expect(taskTargets("o-%t", "", task(0), "/w").err).toEqual({ kind: "file", path: "/w/o-0" });
    expect(taskTargets("o-%t", "e-%t", task(0), "/w").err).toEqual({ kind: "file", path: "/w/e-0" });
    expect(taskTargets("none", "", task(0), "/w").err).toEqual({ kind: "terminal" });
  });

  it("-i: srun's stdin to every task by default and for all (Slurm 22.05 fname_create, srun.1)", () => {
    for (const spec of ["", "all", "ALL", "allx", "-", "-x"]) {
      expect(inputTarget(spec, task(0), "/w", 2)).toEqual({ kind: "forward" });
      expect(inputTarget(spec, task(1), "/w", 2)).toEqual({ kind: "forward" });
    }
  });

  it("-i N: only task N reads srun's stdin, the others /dev/null; N beyond the tasks is a file name", () => {
    expect(inputTarget("1", task(1), "/w", 3)).toEqual({ kind: "forward" });
    expect(inputTarget("1", task(0), "/w", 3)).toEqual({ kind: "none" });
    expect(inputTarget("3", task(0), "/w", 3)).toEqual({ kind: "forward", path: "/w/3" });
  });

  it("-i none; a per-task pattern is each task's file; one file for all is opened and forwarded by srun", () => {
    expect(inputTarget("none", task(0), "/w", 1)).toEqual({ kind: "none" });
    expect(inputTarget("in-%t", task(2), "/w", 4)).toEqual({ kind: "file", path: "/w/in-2" });
    expect(inputTarget("in-%2n.%N.%u", task(2), "/w", 4)).toEqual({ kind: "file", path: "/w/in-01.n2.alice" });
    expect(inputTarget("/abs/in", task(0), "/w", 1)).toEqual({ kind: "forward", path: "/abs/in" });
    expect(inputTarget("in-%j.%s", task(0), "/w", 1)).toEqual({ kind: "forward", path: "/w/in-42.3" });
    expect(inputTarget("in-%%t", task(0), "/w", 1)).toEqual({ kind: "forward", path: "/w/in-%t" });
  });
});
