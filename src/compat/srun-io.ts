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
 * fname_create; oracle: `-n2 cat` prints the input twice), to one task (a task
 * id below the step's task count; the others read /dev/null), to none (`none`:
 * /dev/null), or from a file: a pattern with a per-task letter (%t %n %N %u)
 * names each task's own file, opened on the node as the job's user; any other
 * name (a task id the step does not have included) is one file that srun opens
 * itself and forwards to every task (oracle: `-i 5` with 2 tasks and no file 5:
 * "srun: error: Could not open stdin file: No such file or directory", exit 1).
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

/**
 * Where a task's stdin comes from: what srun forwards (its own stdin, or the file `path` srun opens), /dev/null,
 * or a file of its own (opened on the node as the job's user).
 */
export type InputTarget = { kind: "forward"; path?: string } | { kind: "none" } | { kind: "file"; path: string };

/** Slurm's per-task letters (IO_PER_TASK): such a pattern names a file per task, expanded on the node. */
const PER_TASK = /%\d*[tnNu]/;

/** A task's stdin for the `-i` text `spec` ("" = not given) in a step of `ntasks` tasks. */
export function inputTarget(spec: string, task: TaskIoContext, cwd: string, ntasks: number): InputTarget {
  const s = spec.trim();
  if (s === "" || s.toLowerCase().startsWith("all") || s.startsWith("-")) return { kind: "forward" };
  if (s.toLowerCase() === "none") return { kind: "none" };
  if (/^\d+$/.test(s) && Number(s) < ntasks) return Number(s) === task.taskId ? { kind: "forward" } : { kind: "none" };
  const path = resolveStdioPath(expandFilenamePattern(s, task), cwd);
  return PER_TASK.test(s.replaceAll("%%", "")) ? { kind: "file", path } : { kind: "forward", path };
}
