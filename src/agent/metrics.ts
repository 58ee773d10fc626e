/**
 * @module agent/metrics
 * A node agent's metrics as exposition families: its resources and GPU inventory, the
 * jobs it holds (script running, or ended and not yet acknowledged by the controller)
 * with their live process counts, and its RPC counters. Pure over a snapshot; the spool
 * reader that makes the snapshot is readAgentSnapshot() in agent/metrics-read.ts.
 */
import { gauge, type MetricFamily, type Sample } from "../net/metrics-text.ts";
import { processFamilies, type ProcessFacts } from "../net/metrics-process.ts";
import type { NodeInfoP } from "../sched/model/types.ts";

/** One job in the agent's spool. */
export interface AgentJobSnapshot {
  jobId: number;
  /** The batch script has ended (status.json written) and waits for the controller's acknowledgement. */
  ended: boolean;
  /** Live processes of the job on this node: its stepd, the script, and srun step task groups. */
  processes: number;
}

export interface AgentMetricsInput {
  node: NodeInfoP;
  jobs: readonly AgentJobSnapshot[];
  rpc: MetricFamily[];
  version: string;
  protocol: string;
  startedAt: number;
  /** The daemon's own CPU, memory and descriptors (net/metrics-process.ts); absent: not shown. */
  process?: ProcessFacts;
}

const one = (value: number): Sample[] => [{ value }];

export function agentMetrics(input: AgentMetricsInput): MetricFamily[] {
  const { node } = input;
  const base = { node: node.name };
  const jobs = [...input.jobs].sort((a, b) => a.jobId - b.jobId);
  const running = jobs.filter((j) => !j.ended).length;
  return [
    gauge("spur_build_info", "Spur version and RPC protocol version of this daemon", [{ labels: { version: input.version, protocol: input.protocol, role: "spurd" }, value: 1 }]),
    gauge("spur_start_time_seconds", "When this daemon started (Unix time)", one(input.startedAt)),
    gauge("spurd_cpus", "CPUs this node offers", [{ labels: base, value: node.cpus }]),
    gauge("spurd_memory_bytes", "Memory this node offers (RealMemory)", [{ labels: base, value: node.realMemoryMib * 1024 * 1024 }]),
    gauge("spurd_gpus", "GPUs in this node's inventory, by model", [{ labels: { ...base, model: node.gpuModel }, value: node.gpuCount }]),
    gauge("spurd_jobs", "Jobs this node holds: running, or ended and not yet reported to the controller", [
      { labels: { ...base, state: "running" }, value: running },
      { labels: { ...base, state: "ended_unreported" }, value: jobs.length - running },
    ]),
    gauge("spurd_job_processes", "Live processes of each job on this node (stepd, script, step tasks)",
      jobs.map((j) => ({ labels: { ...base, job_id: String(j.jobId) }, value: j.processes }))),
    ...input.rpc,
    ...(input.process === undefined ? [] : processFamilies(input.process)),
  ];
}
