/**
 * @module compat/srun-io
 * Where srun sends a task's stdout/stderr (`-o/--output`, `-e/--error`): to
 * srun's own stdout/stderr (`all`, the default), nowhere (`none`), only for
 * one task (a task id: the other tasks' output is dropped), or to a file per
 * the filename pattern (%t %n %N %j %J %s %u %x %A %a, zero padding) expanded
 * for each task, relative to srun's working directory. Without `-e`, stderr
 * follows `-o` (Slurm: stderr goes where stdout goes unless given its own).
 * `-i/--input` with a filename pattern gives each task its file as stdin;
 * `none` (and the default) give it nothing. srun forwards no stdin of its own
 * to tasks, so `all` or a task id cannot be honoured (inputTarget says so).
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

/** A task's stdin for `-i`: a file, nothing, or "unsupported" for `all` / a task id (no stdin forwarding). */
export function inputTarget(spec: string, task: TaskIoContext, cwd: string): { kind: "none" } | { kind: "file"; path: string } | { kind: "unsupported" } {
  const s = spec.trim();
  if (s === "" || s.toLowerCase() === "none") return { kind: "none" };
  if (s.toLowerCase() === "all" || /^\d+$/.test(s)) return { kind: "unsupported" };
  return { kind: "file", path: resolveStdioPath(expandFilenamePattern(s, task), cwd) };
}
