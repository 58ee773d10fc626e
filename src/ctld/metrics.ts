/**
 * @module ctld/metrics
 * The controller's metrics as exposition families, built from the state, the
 * scheduler's pass timings, the RPC counters and (once Raft runs under the controller)
 * a Raft status hook. Pure: spurctld passes everything in and serves the text.
 * Two name sets: spur_* (Spur's own, with labels) and the families of the widely used
 * Slurm exporter (slurm_nodes_*, slurm_cpus_*, slurm_gpus_*, slurm_queue_*,
 * slurm_partition_cpus_*, slurm_user_jobs_*) so existing dashboards and alerts keep
 * working. Every name is listed in docs/metrics.md.
 */
import { nodeStateLong } from "../compat/node-states.ts";
import { Histogram, gauge, type MetricFamily, type Sample } from "../net/metrics-text.ts";
import { processFamilies, type ProcessFacts } from "../net/metrics-process.ts";
import type { ClusterState, NodeRecord } from "../sched/model/types.ts";

/** Code-point order: deterministic and much cheaper than localeCompare at 10k samples. */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Scheduler pass buckets in seconds: 0.1 ms to 5 s. */
const PASS_BUCKETS_SEC = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

/** What the scheduling loop reports after each pass. */
export interface SchedulerStats {
  passes: Histogram;
  lastPassSec: number;
  jobsStarted: number;
  observe(pass: { seconds: number; started: number }): void;
}

export function createSchedulerStats(): SchedulerStats {
  const stats: SchedulerStats = {
    passes: new Histogram(PASS_BUCKETS_SEC),
    lastPassSec: 0,
    jobsStarted: 0,
    observe({ seconds, started }) {
      stats.passes.observe(seconds);
      stats.lastPassSec = seconds;
      stats.jobsStarted += started;
    },
  };
  return stats;
}

/** Filled by the Raft driver once Raft runs under the controller (issue 4); absent until then. */
export interface RaftStatus {
  term: number;
  commitIndex: number;
  appliedIndex: number;
  lastIndex: number;
  isLeader: boolean;
  /** Followers' match index as the leader sees it (empty on a follower). */
  peers: { id: string; matchIndex: number }[];
}

export interface ControllerMetricsInput {
  state: ClusterState;
  sched: SchedulerStats;
  rpc: MetricFamily[];
  raft?: RaftStatus;
  /** Committed commands skipped as not applicable (ApplyFailed) since the daemon started. */
  applyFailed?: number;
  version: string;
  protocol: string;
  startedAt: number;
  /** The daemon's own CPU, memory and descriptors (net/metrics-process.ts); absent: not shown. */
  process?: ProcessFacts;
}

const g = gauge;
const one = (value: number): Sample[] => [{ value }];
const inc = (m: Map<string, number>, key: string, by = 1): void => {
  m.set(key, (m.get(key) ?? 0) + by);
};
/** Deterministic order: samples sorted by their label text. */
const sorted = (m: Map<string, number>, labelsOf: (key: string) => Record<string, string>): Sample[] =>
  [...m.entries()].sort(([a], [b]) => byText(a, b)).map(([k, value]) => ({ labels: labelsOf(k), value }));

const SEP = "\u0000";

function jobFamilies(state: ClusterState): MetricFamily[] {
  const byKey = new Map<string, number>();
  for (const job of state.jobs.values()) {
    const i = job.info;
    inc(byKey, [i.state.toLowerCase(), i.partition, i.user].join(SEP));
  }
  const labels = (k: string) => {
    const [st = "", partition = "", user = ""] = k.split(SEP);
    return { state: st, partition, user };
  };
  return [g("spur_jobs", "Jobs the controller holds, by state, partition and user (finished jobs until they are purged)", sorted(byKey, labels))];
}

function nodeFamilies(state: ClusterState): MetricFamily[] {
  const byState = new Map<string, number>();
  const cpus: Sample[] = [];
  const cpusAlloc: Sample[] = [];
  const mem: Sample[] = [];
  const memAlloc: Sample[] = [];
  const gpus: Sample[] = [];
  const gpusAlloc: Sample[] = [];
  for (const n of state.nodes.values()) {
    const i = n.info;
    inc(byState, nodeStateLong(i));
    const node = { node: i.name };
    cpus.push({ labels: node, value: i.cpus });
    cpusAlloc.push({ labels: node, value: i.allocCpus });
    mem.push({ labels: node, value: i.realMemoryMib * 1024 * 1024 });
    memAlloc.push({ labels: node, value: i.allocMemoryMib * 1024 * 1024 });
    gpus.push({ labels: { ...node, model: i.gpuModel }, value: i.gpuCount });
    gpusAlloc.push({ labels: { ...node, model: i.gpuModel }, value: gpusAllocated(n) });
  }
  return [
    g("spur_nodes", "Nodes by state as sinfo %T shows it", sorted(byState, (state) => ({ state }))),
    g("spur_node_cpus", "CPUs of a node", cpus),
    g("spur_node_cpus_alloc", "CPUs of a node allocated to jobs", cpusAlloc),
    g("spur_node_memory_bytes", "Configured memory of a node (RealMemory)", mem),
    g("spur_node_memory_alloc_bytes", "Memory of a node allocated to jobs", memAlloc),
    g("spur_node_gpus", "GPUs of a node, by model", gpus),
    g("spur_node_gpus_alloc", "GPUs of a node allocated to jobs, by model", gpusAlloc),
  ];
}

const gpusAllocated = (n: NodeRecord): number => [...n.gpuByJob.values()].reduce((s, list) => s + list.length, 0);

function schedFamilies(sched: SchedulerStats): MetricFamily[] {
  return [
    { name: "spur_scheduler_pass_seconds", help: "Time of one scheduling pass", type: "histogram", samples: sched.passes.samples() },
    g("spur_scheduler_last_pass_seconds", "Time of the last scheduling pass", one(sched.lastPassSec)),
    { name: "spur_scheduler_jobs_started_total", help: "Jobs started by the scheduler", type: "counter", samples: one(sched.jobsStarted) },
  ];
}

function raftFamilies(raft: RaftStatus | undefined, state: ClusterState): MetricFamily[] {
  const applied = g("spur_state_applied_index", "Index of the last command applied to the controller state", one(state.appliedIndex));
  if (raft === undefined) return [applied];
  const lag = raft.peers.map((p) => ({ labels: { peer: p.id }, value: Math.max(0, raft.lastIndex - p.matchIndex) }));
  return [
    applied,
    g("spur_raft_term", "Current Raft term", one(raft.term)),
    g("spur_raft_commit_index", "Raft commit index", one(raft.commitIndex)),
    g("spur_raft_applied_index", "Raft applied index", one(raft.appliedIndex)),
    g("spur_raft_last_index", "Index of the last entry in the local Raft log", one(raft.lastIndex)),
    g("spur_raft_is_leader", "1 on the Raft leader, 0 elsewhere", one(raft.isLeader ? 1 : 0)),
    g("spur_raft_follower_lag_entries", "Entries a follower is behind the leader's log (leader only)", lag),
  ];
}

/** Every family the controller exposes (see docs/metrics.md). */
export function controllerMetrics(input: ControllerMetricsInput): MetricFamily[] {
  const { state } = input;
  return [
    g("spur_build_info", "Spur version and RPC protocol version of this daemon", [{ labels: { version: input.version, protocol: input.protocol, role: "spurctld" }, value: 1 }]),
    g("spur_start_time_seconds", "When this daemon started (Unix time)", one(input.startedAt)),
    ...jobFamilies(state),
    ...nodeFamilies(state),
    ...schedFamilies(input.sched),
    ...input.rpc,
    ...raftFamilies(input.raft, state),
    { name: "spur_apply_failed_total", help: "Committed commands apply() could not apply and skipped (ApplyFailed; a bug: see the controller log)", type: "counter", samples: one(input.applyFailed ?? 0) },
    ...slurmExporterFamilies(state),
    ...(input.process === undefined ? [] : processFamilies(input.process)),
  ];
}

/** Node state words of sinfo %T → the slurm_nodes_* family each counts in (first prefix match). */
const NODE_BUCKETS = ["alloc", "comp", "down", "drain", "err", "fail", "idle", "maint", "mix", "resv"] as const;

function nodeBucket(long: string): string | undefined {
  if (long.startsWith("drain")) return "drain";
  if (long.startsWith("planned")) return "resv";
  return NODE_BUCKETS.find((b) => long.startsWith(b));
}

/** The Slurm exporter's families (vpenso/prometheus-slurm-exporter names), from the same state. */
export function slurmExporterFamilies(state: ClusterState): MetricFamily[] {
  const nodes = new Map<string, number>(NODE_BUCKETS.map((b) => [b, 0]));
  let cpuAlloc = 0, cpuIdle = 0, cpuOther = 0, gpuTotal = 0, gpuAlloc = 0;
  const partCpu = new Map<string, { alloc: number; idle: number; other: number }>();
  for (const n of state.nodes.values()) {
    const long = nodeStateLong(n.info);
    const bucket = nodeBucket(long);
    if (bucket !== undefined) inc(nodes, bucket);
    const usable = !/^(down|drain|fail|err|unk|future|maint)/.test(long);
    const alloc = n.info.allocCpus;
    const idle = usable ? n.info.cpus - alloc : 0;
    const other = usable ? 0 : n.info.cpus - alloc;
    cpuAlloc += alloc;
    cpuIdle += idle;
    cpuOther += other;
    gpuTotal += n.info.gpuCount;
    gpuAlloc += gpusAllocated(n);
    for (const p of n.info.partitions) {
      const acc = partCpu.get(p) ?? { alloc: 0, idle: 0, other: 0 };
      partCpu.set(p, { alloc: acc.alloc + alloc, idle: acc.idle + idle, other: acc.other + other });
    }
  }
  const families: MetricFamily[] = NODE_BUCKETS.map((b) => g(`slurm_nodes_${b}`, `Nodes in state ${b} (Slurm exporter name)`, one(nodes.get(b) ?? 0)));
  families.push(
    g("slurm_cpus_alloc", "Allocated CPUs (Slurm exporter name)", one(cpuAlloc)),
    g("slurm_cpus_idle", "Idle CPUs (Slurm exporter name)", one(cpuIdle)),
    g("slurm_cpus_other", "CPUs on nodes that cannot run jobs (Slurm exporter name)", one(cpuOther)),
    g("slurm_cpus_total", "Total CPUs (Slurm exporter name)", one(cpuAlloc + cpuIdle + cpuOther)),
    g("slurm_gpus_alloc", "Allocated GPUs (Slurm exporter name)", one(gpuAlloc)),
    g("slurm_gpus_idle", "Idle GPUs (Slurm exporter name)", one(gpuTotal - gpuAlloc)),
    g("slurm_gpus_total", "Total GPUs (Slurm exporter name)", one(gpuTotal)),
    g("slurm_gpus_utilization", "Allocated share of the GPUs, 0 to 1 (Slurm exporter name)", one(gpuTotal === 0 ? 0 : gpuAlloc / gpuTotal)),
  );
  families.push(...queueFamilies(state));
  for (const kind of ["alloc", "idle", "other"] as const) {
    const name = kind === "alloc" ? "allocated" : kind;
    const samples = [...partCpu.entries()].sort(([a], [b]) => byText(a, b)).map(([partition, v]) => ({ labels: { partition }, value: v[kind] }));
    families.push(g(`slurm_partition_cpus_${name}`, `CPUs ${name} per partition (Slurm exporter name)`, samples));
  }
  const totals = [...partCpu.entries()].sort(([a], [b]) => byText(a, b)).map(([partition, v]) => ({ labels: { partition }, value: v.alloc + v.idle + v.other }));
  families.push(g("slurm_partition_cpus_total", "CPUs per partition (Slurm exporter name)", totals));
  return families;
}

const QUEUE_STATES = ["pending", "running", "suspended", "cancelled", "completing", "completed", "configuring", "failed", "timeout", "preempted", "node_fail"];

function queueFamilies(state: ClusterState): MetricFamily[] {
  const queue = new Map<string, number>(QUEUE_STATES.map((s) => [s, 0]));
  const userPending = new Map<string, number>();
  const userRunning = new Map<string, number>();
  for (const job of state.jobs.values()) {
    const st = job.info.state.toLowerCase();
    if (queue.has(st)) inc(queue, st);
    if (job.info.stateFlags.includes("COMPLETING")) inc(queue, "completing");
    if (st === "pending") inc(userPending, job.info.user);
    if (st === "running") inc(userRunning, job.info.user);
  }
  return [
    ...QUEUE_STATES.map((s) => g(`slurm_queue_${s}`, `Jobs in state ${s} (Slurm exporter name)`, one(queue.get(s) ?? 0))),
    g("slurm_user_jobs_pending", "Pending jobs per user (Slurm exporter name)", sorted(userPending, (user) => ({ user }))),
    g("slurm_user_jobs_running", "Running jobs per user (Slurm exporter name)", sorted(userRunning, (user) => ({ user }))),
  ];
}
