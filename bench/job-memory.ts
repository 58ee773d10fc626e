/**
 * @module bench/job-memory
 * Issue 16: what a pending job costs the controller's memory when it comes the way a replica
 * gets it: an sbatch-like submit command (the user's environment, --export=ALL, a script of
 * ~1 KB), written to the log as JSON and decoded from it (raft/driver's decodeCommand), then
 * applied; and after a snapshot restore (ctld/state-snapshot.ts), the other way jobs come to
 * be in memory. bench/sched.ts builds its 100k pending jobs as shallow clones of 64
 * templates (their specs, environments and strings shared), so it cannot see this.
 * JOBS jobs of USERS users (each with one environment of ENV_VARS variables and 3 scripts)
 * on a small cluster; heap after a full GC (bun:jsc heapStats) against the same state with
 * no jobs, per job, and the top object types per job; then where a job's bytes go, by taking
 * its parts away one after the other (environment, script, the other strings, spec, info) and
 * measuring what each frees.
 * Prints JSON lines {metric, value, unit, ...conditions}.
 * Run: bun bench/job-memory.ts   (JOBS=20000 USERS=20 ENV_VARS=60 SEED=1)
 */
import { heapStats } from "bun:jsc";
import { parseConf } from "../src/compat/conf/slurm-conf.ts";
import { createState } from "../src/sched/model/state.ts";
import { apply } from "../src/sched/model/apply.ts";
import { emptyJobSpec } from "../src/sched/model/records.ts";
import type { Command } from "../src/sched/model/commands.ts";
import type { ClusterState, JobSpecP } from "../src/sched/model/types.ts";
import { decodeCommand } from "../src/raft/driver/api.ts";
import { encodeSnapshot, restoreSnapshot } from "../src/ctld/state-snapshot.ts";
import { createRng, type Rng } from "../src/lib/rng.ts";

const env = (name: string, dflt: number): number => Number(process.env[name] ?? dflt);
const JOBS = env("JOBS", 20_000);
const USERS = env("USERS", 20);
const ENV_VARS = env("ENV_VARS", 60);
const SEED = env("SEED", 1);
const NOW = 1_800_000_000;
const CONF = [
  "ClusterName=mem", "DefMemPerCPU=1000",
  "NodeName=c[1-64] CPUs=64 RealMemory=256000", "PartitionName=cpu Nodes=ALL Default=YES MaxTime=INFINITE", "",
].join("\n");

const out = (metric: string, value: number, unit: string, extra: Record<string, unknown> = {}): void => {
  console.log(JSON.stringify({ metric, value: Math.round(value * 1000) / 1000, unit, ...extra }));
};

function newState(): ClusterState {
  const parsed = parseConf(CONF);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const made = createState(parsed.value);
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
}

/** What a user's shell exports: the same for every job the user submits from it. */
function userEnv(rng: Rng, u: number): Record<string, string> {
  const e: Record<string, string> = { HOME: `/home/u${u}`, USER: `u${u}`, LOGNAME: `u${u}`, SHELL: "/bin/bash", PWD: `/home/u${u}/proj` };
  const path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/cuda/bin:/opt/conda/bin";
  e.PATH = `/home/u${u}/.local/bin:${path}`;
  for (let k = Object.keys(e).length; k < ENV_VARS; k++) e[`APP_SETTING_${k}`] = `/opt/app${k}/share/${rng.int(0, 1e6)}:/home/u${u}/lib${k}`;
  return e;
}

function script(u: number, s: number): string {
  const lines = ["#!/bin/bash", `#SBATCH --job-name=train-${s}`, "#SBATCH --ntasks=4", "#SBATCH --time=60", "module load cuda/12.4 python/3.11", `cd /home/u${u}/proj`];
  for (let k = 0; k < 20; k++) lines.push(`python train.py --config configs/run${s}.yaml --shard ${k} --epochs 10 --lr 3e-4 || exit 1`);
  return `${lines.join("\n")}\n`;
}

function submitCommand(rng: Rng, i: number, envs: Record<string, string>[]): Command {
  const u = i % USERS;
  const s = rng.int(0, 2);
  const spec: JobSpecP = {
    ...emptyJobSpec(), name: `train-${s}`, script: script(u, s), workDir: `/home/u${u}/proj`, env: envs[u] as Record<string, string>,
    ntasks: 4, timeLimitMin: 60, stdOut: `/home/u${u}/proj/slurm-%j.out`, export: "ALL", submitLine: `sbatch run${s}.sh`, submitHost: "login1",
  };
  return { v: 1, type: "submit", at: NOW - 60, spec, by: { uid: 1000 + u, gid: 1000, user: `u${u}`, group: "users" }, priority: 0 };
}

function measure(label: string): { heap: number; objects: Record<string, number>; rss: number } {
  Bun.gc(true);
  const h = heapStats();
  return { heap: h.heapSize + h.extraMemorySize, objects: { ...h.objectTypeCounts }, rss: process.memoryUsage().rss, ...{ label } };
}

function report(path: string, base: ReturnType<typeof measure>, after: ReturnType<typeof measure>, state: ClusterState): void {
  const pending = [...state.jobs.values()].filter((j) => j.info.state === "PENDING").length;
  const cond = { path, jobs: JOBS, pending, users: USERS, env_vars: ENV_VARS, seed: SEED };
  out("job_heap_bytes_per_job", (after.heap - base.heap) / JOBS, "B", cond);
  out("job_rss_mib", after.rss / 2 ** 20, "MiB", cond);
  const types = Object.entries(after.objects)
    .map(([k, v]) => [k, (v - (base.objects[k] ?? 0)) / JOBS] as const)
    .filter(([, v]) => v >= 0.5)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([k, v]) => `${k}=${Math.round(v * 10) / 10}`);
  out("job_objects_per_job", types.reduce((s, t) => s + Number(t.split("=")[1]), 0), "objects", { ...cond, top: types.join(" ") });
}

/** Bytes per job each part frees when taken away from every job (destructive: run last on a state). */
function breakdown(state: ClusterState): void {
  const jobs = [...state.jobs.values()];
  const steps: [string, (j: (typeof jobs)[number]) => void][] = [
    ["environment", (j) => void (j.spec.env = {})],
    ["script", (j) => void (j.spec.script = "")],
    ["spec_strings", (j) => { for (const k of Object.keys(j.spec)) if (typeof (j.spec as unknown as Record<string, unknown>)[k] === "string") (j.spec as unknown as Record<string, unknown>)[k] = ""; }],
    ["spec_object", (j) => void (j.spec = {} as never)],
    ["info_strings", (j) => { for (const k of Object.keys(j.info)) if (typeof (j.info as unknown as Record<string, unknown>)[k] === "string") (j.info as unknown as Record<string, unknown>)[k] = ""; }],
    ["info_object", (j) => void (j.info = {} as never)],
    ["record_and_table", () => {}],
  ];
  let before = measure("parts").heap;
  for (const [part, strip] of steps) {
    if (part === "record_and_table") {
      const kept = jobs.length;
      jobs.length = 0;
      state.jobs.clear();
      const now = measure(part).heap;
      out("job_part_bytes", (before - now) / kept, "B", { part, jobs: JOBS, users: USERS, env_vars: ENV_VARS });
      break;
    }
    for (const j of jobs) strip(j);
    const now = measure(part).heap;
    out("job_part_bytes", (before - now) / jobs.length, "B", { part, jobs: JOBS, users: USERS, env_vars: ENV_VARS });
    before = now;
  }
}

function main(): void {
  const rng = createRng(SEED);
  const envs = Array.from({ length: USERS }, (_, u) => userEnv(rng, u));
  const state = newState();
  const base = measure("empty");
  let applyMs = 0;
  for (let i = 0; i < JOBS; i++) {
    // as a replica applies it: the command's JSON from the log entry, decoded
    const entry = new TextEncoder().encode(JSON.stringify({ p: "", c: submitCommand(rng, i, envs) }));
    const command = decodeCommand(entry) as Command;
    const t0 = performance.now();
    const r = apply(state, command);
    applyMs += performance.now() - t0;
    if (r.errorCode !== "") throw new Error(`submit refused: ${r.errorCode} ${r.error ?? ""}`);
  }
  report("log_apply", base, measure("applied"), state);
  out("job_apply_us_per_job", (applyMs * 1000) / JOBS, "us", { jobs: JOBS, users: USERS, env_vars: ENV_VARS });
  const bytes = encodeSnapshot(state, 1);
  breakdown(state);
  const restored = newState();
  const restoredBase = measure("restore-empty");
  const r0 = performance.now();
  restoreSnapshot(restored, bytes);
  out("job_restore_ms", performance.now() - r0, "ms", { jobs: JOBS, users: USERS, env_vars: ENV_VARS });
  report("snapshot_restore", restoredBase, measure("restored"), restored);
}

main();
