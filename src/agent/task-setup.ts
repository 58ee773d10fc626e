/**
 * @module agent/task-setup
 * What srun carries to every task besides its environment (RunTasksRequest.setup): the
 * submitter's umask and soft resource limits (Slurm's PropagateResourceLimits=ALL; the
 * oracle's tasks see the srun shell's `ulimit -n`, `ulimit -c` and umask), and srun's
 * --task-prolog/--task-epilog. Pure: srun builds the setup from /proc/self/limits text, the
 * agent wraps the task's command with it (one shell that sets them and execs the task).
 */
import type { Plain } from "../lib/plain.ts";
import type { TaskSetup } from "../net/gen/spur/v1/agent_pb.ts";
import { taskWrapCommand } from "./prolog.ts";

/** /proc/self/limits rows → prlimit's resource names, the limits Slurm propagates by default. */
const PROC_NAMES: Record<string, string> = {
  "Max core file size": "core", "Max file size": "fsize", "Max open files": "nofile", "Max processes": "nproc",
  "Max stack size": "stack", "Max cpu time": "cpu", "Max data size": "data", "Max address space": "as",
  "Max locked memory": "memlock",
};

/** Soft limits from /proc/self/limits text: resource → "unlimited" or the number. */
export function parseProcLimits(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const name = Object.keys(PROC_NAMES).find((n) => line.startsWith(n));
    if (name === undefined) continue;
    const soft = line.slice(name.length).trim().split(/\s+/)[0] ?? "";
    if (/^(\d+|unlimited)$/.test(soft)) out[PROC_NAMES[name] as string] = soft;
  }
  return out;
}

/**
 * The task's command inside srun's prolog/epilog and a shell that sets the umask and soft limits
 * and execs it. A limit the node's hard limit forbids is left as the node has it (Slurm logs and
 * goes on). `$0` stays "slurm_task", the name the task's shell errors carry.
 */
export function withTaskSetup(setup: Plain<TaskSetup> | undefined, argv: readonly string[]): string[] {
  if (setup === undefined) return [...argv];
  const lines: string[] = [];
  if (setup.umask !== undefined) lines.push(`umask ${(setup.umask & 0o777).toString(8).padStart(4, "0")}`);
  for (const [resource, soft] of Object.entries(setup.softLimits).sort(([a], [b]) => a.localeCompare(b))) {
    if (!/^[a-z]+$/.test(resource) || !/^(\d+|unlimited)$/.test(soft)) continue;
    // By absolute path: the task's PATH is the job's (possibly none, or the user's own prlimit).
    lines.push(`/usr/bin/prlimit --pid $$ --${resource}=${soft}: 2>/dev/null`);
  }
  const task = lines.length === 0 ? [...argv] : ["/bin/sh", "-c", [...lines, 'exec "$@"'].join("\n"), "slurm_task", ...argv];
  return taskWrapCommand(setup.taskProlog, setup.taskEpilog, task);
}
