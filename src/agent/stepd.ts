/**
 * @module agent/stepd
 * Supervises one batch script (`spur stepd JOBDIR`, started detached by spurd so
 * it outlives spurd restarts): opens the output files as the user, starts the
 * script in its own session as the submitting user (setpriv when running as
 * root), forwards termination as Slurm does (SIGCONT + SIGTERM to the whole
 * process group, SIGKILL after KillWait), and records the exit in status.json.
 */
import { spawn } from "node:child_process";
import { closeSync, fchownSync, openSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { readJson, writeJson, type LaunchFile, type StatusFile } from "./spool.ts";
import { userCommand } from "./run-as.ts";

function openOutput(path: string, append: boolean, uid: number, gid: number): number {
  const fd = openSync(path, append ? "a" : "w", 0o644);
  if (process.getuid?.() === 0) {
    try {
      fchownSync(fd, uid, gid);
    } catch {
      /* a file system without ownership (e.g. some mounts): keep root's */
    }
  }
  return fd;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    /* the group is already gone */
  }
}

export async function runStepd(dir: string): Promise<number> {
  const launch = readJson<LaunchFile>(join(dir, "launch.json"));
  if (launch === undefined) return 1;
  const append = launch.openMode === "append";
  let stdoutFd: number;
  let stderrFd: number;
  let stdinFd: number;
  try {
    stdoutFd = openOutput(launch.stdOut, append, launch.uid, launch.gid);
    stderrFd = launch.stdErr === launch.stdOut ? stdoutFd : openOutput(launch.stdErr, append, launch.uid, launch.gid);
    stdinFd = openSync(launch.stdIn || "/dev/null", "r");
  } catch (error) {
    writeStatus(dir, { exitCode: 1, exitSignal: 0, outcome: "LAUNCH_FAILED", endTime: Date.now() / 1000, message: String(error) });
    return 1;
  }
  const [cmd, ...args] = userCommand(launch.uid, launch.gid, launch.user, [join(dir, "script"), ...launch.argv]);
  const child = spawn(cmd ?? "/bin/sh", args, {
    cwd: launch.workDir,
    env: launch.env,
    stdio: [stdinFd, stdoutFd, stderrFd],
    detached: true,
  });
  const pgid = child.pid ?? 0;
  writeFileSync(join(dir, "child.pid"), String(pgid));
  let terminating = false;
  process.on("SIGTERM", () => {
    if (terminating || pgid === 0) return;
    terminating = true;
    signalGroup(pgid, "SIGCONT");
    signalGroup(pgid, "SIGTERM");
    setTimeout(() => signalGroup(pgid, "SIGKILL"), Math.max(1, launch.killWaitSec) * 1000).unref();
  });
  const status = await new Promise<StatusFile>((resolve) => {
    child.once("error", (error) =>
      resolve({ exitCode: 1, exitSignal: 0, outcome: "LAUNCH_FAILED", endTime: Date.now() / 1000, message: String(error) }),
    );
    child.once("exit", (code, signal) =>
      resolve({
        exitCode: code ?? 0, exitSignal: signal ? (constants.signals[signal] ?? 0) : 0, outcome: "",
        endTime: Date.now() / 1000, message: "",
      }),
    );
  });
  // The script is done: nothing it started may outlive it (Slurm kills the job's processes).
  if (pgid !== 0) signalGroup(pgid, "SIGKILL");
  for (const fd of new Set([stdoutFd, stderrFd, stdinFd])) closeSync(fd);
  writeStatus(dir, status);
  return 0;
}

function writeStatus(dir: string, status: StatusFile): void {
  const reason = readJson<{ reason: string }>(join(dir, "end-reason.json"));
  writeJson(join(dir, "status.json"), reason?.reason ? { ...status, outcome: reason.reason } : status);
}
