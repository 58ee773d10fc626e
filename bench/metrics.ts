/**
 * @module bench/metrics
 * How long the controller takes to render its metrics (one scrape) with many jobs and
 * nodes, and the size of the text, one JSON object per line. The state is built through
 * the real apply() (submit + one scheduling pass), so the families are the served ones.
 * Usage: bun bench/metrics.ts [--jobs 10000] [--nodes 1000] [--users 50]
 */
import { loadavg } from "node:os";
import { parseConf } from "../src/compat/conf/slurm-conf.ts";
import { createState } from "../src/sched/model/state.ts";
import { apply } from "../src/sched/model/apply.ts";
import { emptyJobSpec } from "../src/sched/model/records.ts";
import { schedule } from "../src/sched/plan/schedule.ts";
import { controllerMetrics, createSchedulerStats } from "../src/ctld/metrics.ts";
import { renderMetrics } from "../src/net/metrics-text.ts";
import { createRpcMetrics } from "../src/net/rpc-metrics.ts";

const args = process.argv.slice(2);
const arg = (name: string, dflt: number): number => Number(args[args.indexOf(name) + 1] ?? dflt) || dflt;
const JOBS = arg("--jobs", 10_000);
const NODES = arg("--nodes", 1000);
const USERS = arg("--users", 50);
const RUNS = 20;

const conf = parseConf(`ClusterName=bench
NodeName=n[1-${NODES}] CPUs=64 RealMemory=512000 Gres=gpu:h100:8 Port=20000
PartitionName=batch Nodes=n[1-${NODES}] Default=YES MaxTime=INFINITE
PartitionName=gpu Nodes=n[1-${NODES}] MaxTime=INFINITE
`);
if (!conf.ok) throw new Error(conf.error.message);
const made = createState(conf.value);
if (!made.ok) throw new Error(made.error.message);
const state = made.value;
for (const node of state.nodes.values()) apply(state, { v: 1, type: "registerNode", at: 1, node: { ...node.info, addr: "127.0.0.1" }, runningJobIds: [] });
for (let i = 0; i < JOBS; i++) {
  const user = `user${i % USERS}`;
  const spec = { ...emptyJobSpec(), name: "b", script: "#!/bin/sh\ntrue\n", workDir: "/tmp", ntasks: 8, gpus: i % 2 === 0 ? "1" : "", partition: i % 2 === 0 ? "gpu" : "batch" };
  apply(state, { v: 1, type: "submit", at: 2, spec, by: { uid: 1000 + (i % USERS), gid: 1000, user, group: user }, priority: 0 });
}
apply(state, { v: 1, type: "startJobs", at: 3, decisions: schedule(state, 3).decisions });

const sched = createSchedulerStats();
sched.observe({ seconds: 0.01, started: 1 });
const rpc = createRpcMetrics();
for (let i = 0; i < 1000; i++) rpc.observe(`/spur.v1.Controller/M${i % 20}`, 200, i / 1e5);

const times: number[] = [];
let bytes = 0;
for (let i = 0; i < RUNS; i++) {
  const start = performance.now();
  const text = renderMetrics(controllerMetrics({ state, sched, rpc: rpc.families(), version: "bench", protocol: "1", startedAt: 0 }));
  times.push(performance.now() - start);
  bytes = Buffer.byteLength(text);
}
times.sort((a, b) => a - b);
const running = [...state.jobs.values()].filter((j) => j.info.state === "RUNNING").length;
// The 1-minute load average is printed because these machines are shared: figures taken under load are not comparable.
const conditions = { jobs: JOBS, running, nodes: NODES, users: USERS, runs: RUNS, loadavg1: Number(loadavg()[0]?.toFixed(2)) };
console.log(JSON.stringify({ metric: "metrics_render_ms_min", value: Number((times[0] ?? 0).toFixed(2)), unit: "ms", ...conditions }));
console.log(JSON.stringify({ metric: "metrics_render_ms_median", value: Number((times[RUNS >> 1] ?? 0).toFixed(2)), unit: "ms", ...conditions }));
console.log(JSON.stringify({ metric: "metrics_render_ms_max", value: Number((times[RUNS - 1] ?? 0).toFixed(2)), unit: "ms", ...conditions }));
console.log(JSON.stringify({ metric: "metrics_text_size", value: Number((bytes / 1024).toFixed(1)), unit: "KiB", ...conditions }));
