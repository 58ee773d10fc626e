/**
 * @module fixtures
 * JobInfo records rebuilt from the golden scenarios' setups (oracle cluster
 * n[1-4], n3/n4 with 8 GPUs, DefMemPerCPU=256) and env-dump helpers that print
 * an environment the way the goldens' `env | grep -E '^(SLURM|...)' | sort` did.
 */
import type { BatchEnvContext } from "../../../src/compat/job-env.ts";
import type { Plain } from "../../../src/lib/plain.ts";
import type { JobInfo } from "../../../src/net/gen/spur/v1/types_pb.ts";
import { goldenStdout, makeJob } from "./golden.ts";

export const CONF = "/tmp/slurm-oracle/etc/slurm.conf";
export const JOBS_DIR = "/tmp/slurm-oracle/jobs";
export const SUBMIT_ENV: Record<string, string> = { PATH: "/usr/bin:/bin", HOME: "/root", PWD: JOBS_DIR };
export const START = 1796210444;

/** What the goldens grepped for. */
const GREP = /^(SLURM|CUDA|ROCR|HIP|GPU|ZE_)/;

/**
 * Lines only 22.05 printed and Spur leaves to others or drops: the task pid is
 * the agent's; SLURM_NODE_ALIASES and SLURM_WORKING_CLUSTER are not in the
 * 26.x table.
 */
export const ONLY_2205 = new Set(["SLURM_TASK_PID", "SLURM_NODE_ALIASES", "SLURM_WORKING_CLUSTER"]);

/** Variables current Slurm (the tables) sets that 22.05 did not (see job-env.tsv). */
export const NEW_SINCE_2205 = new Set([
  "SLURM_JOB_GROUP",
  "SLURM_JOB_START_TIME",
  "SLURM_JOB_END_TIME",
  "SLURM_STEP_ID",
  "SLURM_JOB_OVERSUBSCRIBE",
  "SLURM_JOB_EXCLUSIVE",
]);

/** Sorted `K=V` lines (byte order, as `sort` in the C locale) of the grepped variables. */
export function envDump(env: Record<string, string>, drop: ReadonlySet<string> = new Set()): string {
  const lines = Object.entries(env)
    .filter(([key]) => GREP.test(key) && !drop.has(key))
    .map(([key, value]) => `${key}=${value}`)
    .sort();
  return lines.map((line) => `${line}\n`).join("");
}

/** A golden env dump with the given variables' lines removed. */
export function goldenDump(num: string, drop: ReadonlySet<string>): string {
  return goldenStdout(num)
    .split("\n")
    .filter((line) => line !== "" && GREP.test(line) && !drop.has(line.slice(0, line.indexOf("="))))
    .map((line) => `${line}\n`)
    .join("");
}

/** A running job of the oracle cluster on one node. */
export function oracleJob(over: Partial<Plain<JobInfo>> & { node: string; cpus: number; gpus: number[]; tasks?: number }): Plain<JobInfo> {
  const { node, cpus, gpus, tasks, ...rest } = over;
  return makeJob({
    nodelist: node,
    batchHost: node,
    numCpus: cpus,
    numTasks: 1,
    cpusPerTask: 1,
    memPerCpuMib: 256,
    startTime: START,
    alloc: [{ node, cpus, memMib: 256 * cpus, gpuIndices: gpus, tasks: tasks ?? 0 }],
    tresPerNode: gpus.length > 0 ? `gres/gpu:${gpus.length}` : "",
    ...rest,
  });
}

/** Batch context of the oracle cluster for the job's first node. */
export function oracleCtx(job: Plain<JobInfo>, over: Partial<BatchEnvContext> = {}): BatchEnvContext {
  const alloc = job.alloc[0];
  return {
    clusterName: "oracle",
    nodeName: alloc?.node ?? "n1",
    nodeIndex: 0,
    submitEnv: SUBMIT_ENV,
    confPath: CONF,
    gpuIndicesOnNode: alloc?.gpuIndices ?? [],
    constrainDevices: false,
    topology: { addr: alloc?.node ?? "n1", pattern: "node" },
    spec: {},
    ...over,
  };
}
