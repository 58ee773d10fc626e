/**
 * @module sched/plan/schedule
 * The scheduler's entry point: a pure function from a state snapshot and `now`
 * to decisions (jobs to start, with per-node allocations) and the pending reason
 * of every job left waiting. This first policy is Slurm's builtin one: strict
 * priority order per partition; once a job in a partition cannot start, the jobs
 * behind it wait with reason Priority. Backfill replaces that rule later through
 * the same interface.
 */
import type { StartDecision } from "../model/commands.ts";
import type { ClusterState, JobRecord } from "../model/types.ts";
import { fitJob, type NodeView } from "./fit-node.ts";
import { buildRequest, switchWaitOver } from "./request.ts";
import { eligibility, type DependencyIndex, buildDependencyIndex } from "./eligibility.ts";
import { freeResources, nodeAcceptsWork } from "../model/resources.ts";
import { expandHostlist } from "../../compat/hostlist.ts";
import { parseGpuTopology } from "./gpu-topology.ts";

export interface ScheduleResult {
  decisions: StartDecision[];
  /** Pending reason per job id (jobs not started). */
  reasons: Map<number, string>;
  stats: { examined: number; started: number };
}

export interface ScheduleBudget {
  maxJobsExamined: number;
}

const expand = (h: string): string[] => {
  const r = expandHostlist(h);
  return r.ok ? r.value : [];
};

export function schedule(state: ClusterState, now: number, budget: ScheduleBudget = { maxJobsExamined: 100_000 }): ScheduleResult {
  const reasons = new Map<number, string>();
  const decisions: StartDecision[] = [];
  const views = nodeViews(state);
  const pending = pendingInPriorityOrder(state);
  const deps: DependencyIndex = buildDependencyIndex(state);
  const blockedPartitions = new Set<string>();
  let examined = 0;
  for (const job of pending) {
    if (examined >= budget.maxJobsExamined) {
      reasons.set(job.info.jobId, "Priority");
      continue;
    }
    examined++;
    const why = eligibility(state, job, now, deps);
    if (why !== "") {
      reasons.set(job.info.jobId, why);
      continue;
    }
    if (blockedPartitions.has(job.info.partition)) {
      reasons.set(job.info.jobId, "Priority");
      continue;
    }
    const tasks = job.arrayPending.length > 0 ? arrayTasksAllowed(state, job) : [job.info.arrayTaskId];
    let started = 0;
    for (const taskId of tasks) {
      const decision = tryStart(state, job, views, taskId, now);
      if (decision === undefined) break;
      decisions.push(decision);
      started++;
    }
    const remaining = Math.max(1, job.arrayPending.length) - started;
    if (remaining > 0) {
      // Every task the throttle allowed has started: the rest wait for the throttle, not for resources.
      const throttled = started === tasks.length;
      reasons.set(job.info.jobId, throttled ? "JobArrayTaskLimit" : "Resources");
      if (!throttled) blockedPartitions.add(job.info.partition);
    }
  }
  return { decisions, reasons, stats: { examined, started: decisions.length } };
}

/** Pending array tasks that the throttle (%N) lets start now, in index order. */
function arrayTasksAllowed(state: ClusterState, job: JobRecord): number[] {
  if (job.arrayThrottle === 0) return [...job.arrayPending];
  let running = 0;
  for (const other of state.jobs.values()) {
    if (other.info.arrayJobId === job.info.arrayJobId && other.info.state === "RUNNING") running++;
  }
  return job.arrayPending.slice(0, Math.max(0, job.arrayThrottle - running));
}

function tryStart(state: ClusterState, job: JobRecord, views: Map<string, NodeView>, arrayTaskId: number, now: number): StartDecision | undefined {
  const partition = state.partitions.find((p) => p.info.name === job.info.partition);
  if (partition === undefined) return undefined;
  const req = buildRequest(job.spec, state.config, expand);
  if (typeof req === "string") return undefined;
  req.switchWaitOver = switchWaitOver(job.spec, job.info.eligibleTime || job.info.submitTime, now);
  const candidates = partition.nodeNames.map((n) => views.get(n)).filter((v): v is NodeView => v !== undefined);
  const alloc = fitJob(req, candidates, "now", state.topology);
  if (alloc === undefined) return undefined;
  for (const share of alloc) {
    const v = views.get(share.node);
    if (v === undefined) continue;
    v.freeCpus -= share.cpus;
    v.freeMemMiB -= share.memMib;
    v.freeGpus = v.freeGpus.filter((g) => !share.gpuIndices.includes(g));
    v.idle = false;
  }
  return { jobId: job.info.jobId, arrayTaskId, alloc };
}

export function nodeViews(state: ClusterState): Map<string, NodeView> {
  const views = new Map<string, NodeView>();
  for (const node of state.nodes.values()) {
    const free = freeResources(node);
    views.set(node.info.name, {
      name: node.info.name,
      cpus: node.info.cpus,
      memMiB: node.info.realMemoryMib,
      gpuCount: node.info.gpuCount,
      gpuModel: node.info.gpuModel,
      features: node.info.features ? node.info.features.split(",") : [],
      freeCpus: free.cpus,
      freeMemMiB: free.memMiB,
      freeGpus: free.gpuIndices,
      idle: node.info.allocCpus === 0 && node.gpuByJob.size === 0,
      usable: nodeAcceptsWork(node),
      gpuLinks: parseGpuTopology(node.info.gpuTopology, node.info.gpuCount),
    });
  }
  return views;
}

/** Pending jobs by priority (desc), then submission order, then job id: no random tie-breaks. */
export function pendingInPriorityOrder(state: ClusterState): JobRecord[] {
  const pending: JobRecord[] = [];
  for (const job of state.jobs.values()) if (job.info.state === "PENDING") pending.push(job);
  pending.sort(
    (a, b) => b.info.priority - a.info.priority || a.sequence - b.sequence || a.info.jobId - b.info.jobId,
  );
  return pending;
}
