/**
 * @module agent/tasks
 * Runs the tasks of one srun step on this node and streams their output and
 * exits back to srun. Tasks run as the job's user in their own process group;
 * if srun goes away (the stream is aborted) or the job is terminated, every task
 * of the step is killed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RunTasksRequest } from "../net/gen/spur/v1/agent_pb.ts";
import { AsyncQueue } from "../lib/async-queue.ts";
import { userCommand } from "./run-as.ts";

export interface Frame {
  taskId: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
  exited: boolean;
  exitCode: number;
  exitSignal: number;
}

/** Process groups of running steps, per job, so a job's end kills its steps. */
export const stepGroups = new Map<number, Set<number>>();

const EMPTY = new Uint8Array(0);

/** errno values (Linux) of the usual exec failures: Slurm's stepd exits with the errno. */
const EXEC_ERRNO: Record<string, number> = { ENOENT: 2, EACCES: 13, ENOEXEC: 8, ENOTDIR: 20 };
const EXEC_TEXT: Record<string, string> = {
  ENOENT: "No such file or directory", EACCES: "Permission denied", ENOEXEC: "Exec format error", ENOTDIR: "Not a directory",
};

/** Slurm's stepd wording for a command that cannot be executed (conformance x-err-srun-command-not-found). */
function execFailure(node: string, cmd: string, code: string, message: string): string {
  return `slurmstepd-${node}: error: execve(): ${cmd}: ${EXEC_TEXT[code] ?? message}\n`;
}

/** Whether `cmd` names an existing file: a path (relative to the work dir) or a name on PATH. */
function commandExists(cmd: string, path: string, workDir: string): boolean {
  if (cmd === "") return false;
  if (cmd.includes("/")) return existsSync(resolve(workDir, cmd));
  return path.split(":").some((dir) => existsSync(join(dir === "" ? workDir : resolve(workDir, dir), cmd)));
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

export function killJobSteps(jobId: number, signal: NodeJS.Signals = "SIGKILL"): void {
  for (const pid of stepGroups.get(jobId) ?? []) killGroup(pid, signal);
}

export function runTasks(req: RunTasksRequest, abort: AbortSignal): AsyncIterable<Frame> {
  const queue = new AsyncQueue<Frame>();
  const children: ChildProcess[] = [];
  let running = req.tasks.length;
  const groups = stepGroups.get(req.jobId) ?? new Set<number>();
  stepGroups.set(req.jobId, groups);
  const frame = (taskId: number, part: Partial<Frame>): Frame => ({
    taskId, stdout: EMPTY, stderr: EMPTY, exited: false, exitCode: 0, exitSignal: 0, ...part,
  });
  for (const task of req.tasks) {
    const node = task.env.SLURMD_NODENAME ?? "";
    if (!commandExists(req.argv[0] ?? "", task.env.PATH ?? "", req.workDir || "/")) {
      // the shell that sets SLURM_TASK_PID would say "not found" in its own words: answer as Slurm's stepd
      queue.push(frame(task.taskId, { stderr: new TextEncoder().encode(execFailure(node, req.argv[0] ?? "", "ENOENT", "")) }));
      queue.push(frame(task.taskId, { exited: true, exitCode: EXEC_ERRNO.ENOENT }));
      running -= 1;
      continue;
    }
    const [cmd, ...args] = userCommand(req.uid, req.gid, req.user, req.argv);
    const child = spawn(cmd ?? "true", args, { cwd: req.workDir || "/", env: { ...task.env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
    children.push(child);
    if (child.pid !== undefined) groups.add(child.pid);
    child.stdout?.on("data", (b: Buffer) => queue.push(frame(task.taskId, { stdout: new Uint8Array(b) })));
    child.stderr?.on("data", (b: Buffer) => queue.push(frame(task.taskId, { stderr: new Uint8Array(b) })));
    let done = false;
    const finish = (exitCode: number, exitSignal: number, message = "") => {
      if (done) return;
      done = true;
      if (child.pid !== undefined) groups.delete(child.pid);
      if (message) queue.push(frame(task.taskId, { stderr: new TextEncoder().encode(message) }));
      queue.push(frame(task.taskId, { exited: true, exitCode, exitSignal }));
      running -= 1;
      if (running === 0) queue.close();
    };
    child.once("error", (e: NodeJS.ErrnoException) => finish(EXEC_ERRNO[e.code ?? ""] ?? 2, 0, execFailure(node, req.argv[0] ?? "", e.code ?? "", e.message)));
    child.once("close", (code, signal) => finish(code ?? 0, signal ? (constants.signals[signal] ?? 0) : 0));
  }
  if (running === 0) queue.close();
  const limit = req.timeLimitSec > 0 ? setTimeout(() => children.forEach((c) => killGroup(c.pid, "SIGKILL")), req.timeLimitSec * 1000) : undefined;
  abort.addEventListener("abort", () => children.forEach((c) => killGroup(c.pid, "SIGKILL")));
  return {
    async *[Symbol.asyncIterator]() {
      try {
        yield* queue;
      } finally {
        if (limit) clearTimeout(limit);
        children.forEach((c) => killGroup(c.pid, "SIGKILL"));
      }
    },
  };
}
