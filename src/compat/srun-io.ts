/**
 * @module compat/srun-io
 * Where srun sends a task's stdout/stderr (`-o/--output`, `-e/--error`): to
 * srun's own stdout/stderr (`all`, the default), nowhere (`none`), only for
 * one task (a task id: the other tasks' output is dropped), or to a file per
 * the filename pattern (%t %n %N %j %J %s %u %x %A %a, zero padding) expanded
 * for each task, relative to srun's working directory. Without `-e`, stderr
 * follows `-o` (Slurm: stderr goes where stdout goes unless given its own).
 * `-i/--input`: srun forwards its own stdin to every task (`all`, anything
 * starting with "all" or "-", and the default: Slurm 22.05's srun.1 and
 * fname_create), to one task (a task id below the step's task count; the
 * others read /dev/null), to none (`none`: /dev/null), or each task reads the
 * file its pattern names (a task id the step does not have is a file name).
 */
import { expandFilenamePattern, resolveStdioPath, type FilenameContext } from "./filename-pattern.ts";

export type StreamTarget = { kind: "terminal" } | { kind: "discard" } | { kind: "file"; path: string };

/** What srun knows of one task when routing its output. */
export type TaskIoContext = Omit<FilenameContext, "taskId" | "stepId"> & { taskId: number; stepId: number };

/** The target of one stream of one task for the option text `spec` ("" = not given). */
export function streamTarget(spec: string, task: TaskIoContext, cwd: string): StreamTarget {
  const s = spec.trim();
  if (s === "" || s.toLowerCase() === "all") return { kind: "terminal" };
  if (s.toLowerCase() === "none") return { kind: "discard" };
  if (/^\d+$/.test(s)) return Number(s) === task.taskId ? { kind: "terminal" } : { kind: "discard" };
  return { kind: "file", path: resolveStdioPath(expandFilenamePattern(s, task), cwd) };
}

/** Targets of a task's stdout and stderr from `-o` and `-e`. */
export function taskTargets(output: string, error: string, task: TaskIoContext, cwd: string): { out: StreamTarget; err: StreamTarget } {
  const out = streamTarget(output, task, cwd);
  const err = error.trim() === "" ? (out.kind === "file" ? out : { kind: "terminal" as const }) : streamTarget(error, task, cwd);
  return { out, err };
}

/** Where a task's stdin comes from: srun's own stdin (forwarded), /dev/null, or a file (opened as the job's user). */
export type InputTarget = { kind: "forward" } | { kind: "none" } | { kind: "file"; path: string };

/** A task's stdin for the `-i` text `spec` ("" = not given) in a step of `ntasks` tasks. */
export function inputTarget(spec: string, task: TaskIoContext, cwd: string, ntasks: number): InputTarget {
  const s = spec.trim();
  if (s === "" || s.toLowerCase().startsWith("all") || s.startsWith("-")) return { kind: "forward" };
  if (s.toLowerCase() === "none") return { kind: "none" };
  if (/^\d+$/.test(s) && Number(s) < ntasks) return Number(s) === task.taskId ? { kind: "forward" } : { kind: "none" };
  return { kind: "file", path: resolveStdioPath(expandFilenamePattern(s, task), cwd) };
}
