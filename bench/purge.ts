/**
 * @module bench/purge
 * Issue 16: what finished jobs cost the controller's memory, kept (as before purging existed)
 * and purged after MinJobAge (sched/model/apply-purge.ts, their records moved to the SQLite
 * archive, ctld/job-archive.ts). JOBS sbatch-like jobs (a user environment of ENV_VARS
 * variables, a ~1 KB script) are submitted through the log's JSON, started by the scheduler
 * and completed, in rounds; then the heap (bun:jsc heapStats after a full GC) and RSS are taken
 * with every job finished and kept, then again after the purge commands (batches of
 * PURGE_BATCH_MAX) have moved them to the archive, in the same process (the anchor: the state
 * with no jobs). Also: the purge's cost per job (apply + archive write), the archive's bytes
 * on disk, and sacct's read of every archived job.
 * Prints JSON lines {metric, value, unit, ...conditions}.
 * Run: bun bench/purge.ts   (JOBS=20000 USERS=20 ENV_VARS=60)
 */
import { heapStats } from "bun:jsc";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConf } from "../src/compat/conf/slurm-conf.ts";
import { openJobArchive } from "../src/ctld/job-archive.ts";
import { encodeSnapshot } from "../src/ctld/state-snapshot.ts";
import { decodeCommand } from "../src/raft/driver/api.ts";
import { apply } from "../src/sched/model/apply.ts";
import { PURGE_BATCH_MAX, purgeCandidates } from "../src/sched/model/apply-purge.ts";
import type { Command } from "../src/sched/model/commands.ts";
import { emptyJobSpec } from "../src/sched/model/records.ts";
import { createState } from "../src/sched/model/state.ts";
import type { ClusterState, JobSpecP } from "../src/sched/model/types.ts";
import { schedule } from "../src/sched/plan/schedule.ts";

const env = (name: string, dflt: number): number => Number(process.env[name] ?? dflt);
const JOBS = env("JOBS", 20_000);
const USERS = env("USERS", 20);
const ENV_VARS = env("ENV_VARS", 60);
const ROUND = 1000;
const T0 = 1_800_000_000;
const CONF = [
  "ClusterName=mem", "DefMemPerCPU=1000", "MinJobAge=300",
  "NodeName=c[1-64] CPUs=64 RealMemory=256000", "PartitionName=cpu Nodes=ALL Default=YES MaxTime=INFINITE", "",
].join("\n");
const cond = { jobs: JOBS, users: USERS, env_vars: ENV_VARS };

const out = (metric: string, value: number, unit: string, extra: Record<string, unknown> = {}): void => {
  console.log(JSON.stringify({ metric, value: Math.round(value * 1000) / 1000, unit, ...cond, ...extra }));
};

function newState(): ClusterState {
  const parsed = parseConf(CONF);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const made = createState(parsed.value);
  if (!made.ok) throw new Error(made.error.message);
  const s = made.value;
  for (const node of [...s.nodes.values()]) apply(s, { v: 1, type: "registerNode", at: T0, node: { ...node.info, addr: "127.0.0.1" }, runningJobIds: [] });
  return s;
}

function userEnv(u: number): Record<string, string> {
  const e: Record<string, string> = { HOME: `/home/u${u}`, USER: `u${u}`, SHELL: "/bin/bash", PATH: `/home/u${u}/.local/bin:/usr/bin:/bin` };
  for (let k = Object.keys(e).length; k < ENV_VARS; k++) e[`APP_SETTING_${k}`] = `/opt/app${k}/share/${u * 7919 + k}:/home/u${u}/lib${k}`;
  return e;
}

function submitCommand(i: number, at: number, envs: Record<string, string>[]): Command {
  const u = i % USERS;
  const lines = ["#!/bin/bash", "#SBATCH --ntasks=4", "module load cuda/12.4", `cd /home/u${u}/proj`];
  for (let k = 0; k < 20; k++) lines.push(`python train.py --config configs/run${i % 3}.yaml --shard ${k} --epochs 10 || exit 1`);
  const spec: JobSpecP = {
    ...emptyJobSpec(), name: `train-${i % 3}`, script: `${lines.join("\n")}\n`, workDir: `/home/u${u}/proj`, env: envs[u] as Record<string, string>,
    ntasks: 4, timeLimitMin: 60, stdOut: `/home/u${u}/proj/slurm-%j.out`, export: "ALL", submitLine: "sbatch run.sh", submitHost: "login1",
  };
  return { v: 1, type: "submit", at, spec, by: { uid: 1000 + u, gid: 1000, user: `u${u}`, group: "users" }, priority: 0 };
}

/** As a replica applies a command: its JSON from the log, decoded. */
const viaLog = (state: ClusterState, c: Command) => apply(state, decodeCommand(new TextEncoder().encode(JSON.stringify({ p: "", c }))) as Command);

function measure(): { heap: number; rss: number; objects: Record<string, number> } {
  Bun.gc(true);
  const h = heapStats();
  return { heap: h.heapSize + h.extraMemorySize, rss: process.memoryUsage().rss, objects: { ...h.objectTypeCounts } };
}

/** The object types that grew most since `base`, per job ("type=count" words). */
function topObjects(base: ReturnType<typeof measure>, now: ReturnType<typeof measure>): string {
  return Object.entries(now.objects)
    .map(([k, v]) => [k, (v - (base.objects[k] ?? 0)) / JOBS] as const)
    .filter(([, v]) => v >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([k, v]) => `${k}=${Math.round(v * 100) / 100}`)
    .join(" ");
}

function main(): void {
  const envs = Array.from({ length: USERS }, (_, u) => userEnv(u));
  const state = newState();
  const base = measure();
  let at = T0;
  for (let done = 0; done < JOBS; done += ROUND) {
    for (let i = done; i < Math.min(JOBS, done + ROUND); i++) viaLog(state, submitCommand(i, at, envs));
    at += 1;
    const r = schedule(state, at);
    viaLog(state, { v: 1, type: "startJobs", at, decisions: r.decisions });
    at += 60;
    for (const d of r.decisions) {
      viaLog(state, { v: 1, type: "jobEnded", at, jobId: d.jobId, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" });
    }
  }
  const finished = [...state.jobs.values()].filter((j) => j.info.state === "COMPLETED").length;
  const kept = measure();
  out("finished_kept_heap_bytes_per_job", (kept.heap - base.heap) / JOBS, "B", { finished, top_objects_per_job: topObjects(base, kept) });
  out("finished_kept_rss_mib", kept.rss / 2 ** 20, "MiB", { finished });
  out("finished_kept_snapshot_bytes_per_job", encodeSnapshot(state, 1).length / JOBS, "B");

  const dir = mkdtempSync(join(tmpdir(), "bench-purge-"));
  const archive = openJobArchive(join(dir, "job-archive.sqlite"));
  const purgeAt = at + state.config.minJobAgeSec;
  const t0 = performance.now();
  let commands = 0;
  for (;;) {
    const ids = purgeCandidates(state, purgeAt, PURGE_BATCH_MAX);
    if (ids.length === 0) break;
    const r = viaLog(state, { v: 1, type: "purgeJobs", at: purgeAt, jobIds: ids });
    archive.put(r.purged ?? []);
    commands++;
  }
  const purgeMs = performance.now() - t0;
  out("purge_us_per_job", (purgeMs * 1000) / JOBS, "us", { commands, batch: PURGE_BATCH_MAX, note: "candidates + apply + archive write (WAL, synchronous=FULL)" });
  const purged = measure();
  out("finished_purged_heap_bytes_per_job", (purged.heap - base.heap) / JOBS, "B", { left_in_state: state.jobs.size, archived: archive.count(), top_objects_per_job: topObjects(base, purged) });
  out("finished_purged_rss_mib", purged.rss / 2 ** 20, "MiB", { note: "RSS rarely shrinks after a GC: the heap figure is the one to compare" });
  out("finished_purged_snapshot_bytes", encodeSnapshot(state, 1).length, "B");
  out("archive_disk_bytes_per_job", statSync(join(dir, "job-archive.sqlite")).size / JOBS, "B");
  out("archive_snapshot_section_bytes_per_job", archive.exportRows().length / JOBS, "B");
  const r0 = performance.now();
  const rows = archive.list({ jobIds: [], windowStart: 0, windowEnd: 0 }).length;
  out("archive_list_all_ms", performance.now() - r0, "ms", { rows });
  const j0 = performance.now();
  archive.list({ jobIds: [Math.floor(JOBS / 2)], windowStart: 0, windowEnd: 0 });
  out("archive_list_one_ms", performance.now() - j0, "ms");
  archive.close();
  rmSync(dir, { recursive: true, force: true });
}

main();
