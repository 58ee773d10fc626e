/**
 * @module agent/run-as
 * How a job's processes get the submitter's identity (the shell around
 * user-launch.ts): when the agent runs as root it starts util-linux `setpriv`
 * by absolute path (real and effective uid/gid plus the user's supplementary
 * groups) with the fixed root environment; the user's shell behind it opens the
 * job's files, enters its working directory and applies its environment, read
 * from fd 3. An unprivileged agent can only run its own user's jobs, and says so.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { parseOpenReport, rootEnv, userSpawn, type OpenFailure, type UserLaunch } from "./user-launch.ts";

/** setpriv where util-linux puts it; never looked up on a job's PATH. */
export function setprivPath(): string {
  return ["/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv", "/sbin/setpriv"].find((p) => existsSync(p)) ?? "/usr/bin/setpriv";
}

const asRoot = (): boolean => (process.getuid?.() ?? 0) === 0;

/** Wrap a root-side prefix (cgroup join, taskset) around the launch: still root, still the fixed environment. */
export type Prefix = (argv: string[]) => string[];

export interface UserProcess {
  child: ChildProcess;
  /** Batch scripts: resolves once the job's files are open (undefined) or one could not be (why). */
  opened: Promise<OpenFailure | undefined>;
}

/**
 * Start `command` as the job's user. `stdio` gives fds 0-2 (for a batch script, the user's shell replaces
 * them with the job's files); fd 3 (environment) and, for batch scripts, fd 4 (open report) are added here.
 */
export function spawnAsUser(
  l: UserLaunch, command: readonly string[], stdio: Array<"ignore" | "pipe" | "inherit" | number>, prefix: Prefix = (a) => a, pmiSocket = false,
): UserProcess {
  const plan = userSpawn(l, command, { asRoot: asRoot(), setpriv: setprivPath() });
  const [cmd, ...args] = prefix(plan.argv);
  // pmiSocket: fd PMI_FD_NUMBER is one end of a socket pair whose other end the agent serves PMI on (pmi-serve.ts)
  const extra: Array<"pipe" | "ignore"> = pmiSocket ? ["pipe"] : [];
  const child = spawn(cmd as string, args, {
    cwd: "/", env: rootEnv(), detached: true, stdio: [...stdio.slice(0, 3), "pipe", plan.reportsOpens ? "pipe" : "ignore", ...extra],
  });
  const envPipe = child.stdio[3] as Writable | null;
  envPipe?.on("error", () => undefined); // the shell died before reading: its exit says why
  envPipe?.end(plan.envText);
  const report = child.stdio[4] as Readable | null;
  const opened = new Promise<OpenFailure | undefined>((resolve) => {
    if (!plan.reportsOpens || report === null || l.stdio === undefined) return resolve(undefined);
    let text = "";
    report.on("data", (b: Buffer) => {
      text += b.toString();
    });
    report.on("error", () => resolve(parseOpenReport(text, l.stdio as NonNullable<UserLaunch["stdio"]>)));
    report.on("close", () => resolve(parseOpenReport(text, l.stdio as NonNullable<UserLaunch["stdio"]>)));
  });
  return { child, opened };
}

/** The task's fd number of its PMI socket (PMI_FD): after stdio (0-2), the environment (3) and the open report (4). */
export const PMI_FD_NUMBER = 5;

/** Why this agent cannot run a job of `uid`, or "" when it can. */
export function cannotRunAs(uid: number): string {
  const self = process.getuid?.() ?? 0;
  if (self === 0 || self === uid) return "";
  return `spurd runs as uid ${self} and cannot start processes for uid ${uid} (run spurd as root)`;
}
