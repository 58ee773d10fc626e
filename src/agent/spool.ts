/**
 * @module agent/spool
 * The node agent's durable per-job directory, the contract between spurd and the
 * stepd process that supervises each batch script: spurd writes launch.json and
 * the script; stepd writes stepd.pid, child.pid and, when the script has ended,
 * status.json (atomically, by rename). spurd may die and restart at any time:
 * it recovers every job from these files, like slurmd with slurmstepd.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CgroupPlan } from "./cgroup/plan.ts";
import type { Usage } from "./cgroup/usage.ts";
import type { JobFacts, SiteScripts } from "./prolog.ts";
import type { ContainerLaunch } from "./container/launch.ts";

export interface LaunchFile {
  jobId: number;
  /** The run: the job's restarts count in this launch (absent in files of older agents). Sent back with the end. */
  restarts?: number;
  uid: number;
  gid: number;
  user: string;
  workDir: string;
  stdOut: string;
  stdErr: string;
  stdIn: string;
  openMode: string;
  env: Record<string, string>;
  argv: string[];
  killWaitSec: number;
  /** The node's name (for accounting) and the job's cgroup, absent when jobs run uncontained here. */
  node?: string;
  cgroup?: CgroupPlan;
  /** Configured CPU ids this job holds on the node (the cpuset), kept here so a restarted spurd knows them. */
  cpuIds?: number[];
  /** The job's share of this node (steps of the job use its limits). */
  share?: { cpus: number; memMib: number; gpuIndices: number[]; cpuIds?: string };
  /** Seconds between /proc samples for AveRSS and MaxVMSize (JobAcctGatherFrequency). */
  sampleSec?: number;
  /** Prolog/Epilog/TaskProlog/TaskEpilog and what their environment tells about the job. */
  scripts?: SiteScripts;
  facts?: JobFacts;
  /** GPU indices this node gave the job (global numbering), for device isolation. */
  gpuIndices?: number[];
  /** Device file of each of those GPUs, same order ("" where unknown): gres.conf File= or discovery. */
  gpuDeviceFiles?: string[];
  /** CPUs local to each of those GPUs, same order ("0-55,112-167"; "" where unknown), for CPU binding. */
  gpuLocalCpus?: string[];
  /** The script runs in this container (--container-image / --container). */
  container?: ContainerLaunch;
}

export interface StatusFile {
  exitCode: number;
  exitSignal: number;
  /** "" (the exit code decides), or why spurd ended it: CANCELLED TIMEOUT NODE_FAIL REQUEUE LAUNCH_FAILED PROLOG_FAILED */
  outcome: string;
  endTime: number;
  message: string;
  /** The batch step's usage from its cgroup (absent when uncontained). */
  usage?: Usage;
  /** The node must be drained for this reason (a failed Epilog). */
  drainReason?: string;
}

export const jobDir = (spool: string, jobId: number): string => join(spool, "jobs", String(jobId));

export function writeJson(path: string, value: unknown): void {
  const tmp = `${path}.tmp`;
  // 0600: launch.json holds the job's environment, which is the user's alone.
  writeFileSync(tmp, JSON.stringify(value), { mode: 0o600 });
  renameSync(tmp, path);
}

export function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch {
    return undefined;
  }
}

export function createJobDir(spool: string, jobId: number): string {
  const dir = jobDir(spool, jobId);
  rmSync(dir, { recursive: true, force: true });
  // The jobs folder must be traversable by job users. Each job's folder is root's and only traversable
  // (0711): its user reaches the script by name (the script itself is the user's, 0700), but cannot list
  // the folder nor replace launch.json or status.json, which root reads and writes there.
  mkdirSync(join(spool, "jobs"), { recursive: true, mode: 0o755 });
  mkdirSync(dir, { mode: 0o711 });
  return dir;
}

export function listJobIds(spool: string): number[] {
  const root = join(spool, "jobs");
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .sort((a, b) => a - b);
}

export function readPid(dir: string, name: "stepd.pid" | "child.pid"): number | undefined {
  try {
    const pid = Number(readFileSync(join(dir, name), "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether `pid` is still the process we started: its command line contains every needle
 * (e.g. "stepd" and the job folder). A PID file can outlive its process and the number be
 * reused, so nothing is signalled on the number alone.
 */
export function processMatches(pid: number | undefined, needles: string[]): boolean {
  if (pid === undefined || !isAlive(pid)) return false;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
    return needles.every((n) => cmdline.includes(n));
  } catch {
    return false;
  }
}

export function removeJobDir(spool: string, jobId: number): void {
  rmSync(jobDir(spool, jobId), { recursive: true, force: true });
}
