/**
 * @module sched/model/apply-preempt
 * The `preempt` command: end each victim that is still running and not already
 * ending, by its mode — REQUEUE (back to PENDING when it ends, as scontrol
 * requeue) or CANCEL (final state PREEMPTED). The agent sends SIGTERM now and
 * SIGKILL after the victim's kill wait, which becomes its GraceTime when one
 * is set. Victims that changed since the plan are skipped (the plan is stale).
 * SUSPEND: the victim becomes SUSPENDED, its processes get SIGSTOP, its CPUs
 * and GPUs are released (its memory stays charged) and the preemptor starts
 * on them in the same command. resumeSuspended() runs after every job end:
 * a suspended job whose preemptor is gone and whose CPUs/GPUs are free again
 * is charged them back, becomes RUNNING and gets SIGCONT; the time it spent
 * suspended does not count against its time limit. `scontrol suspend/resume`
 * (administrators) use the same SIGSTOP/SIGCONT path; an administrator's
 * suspension keeps all of the job's resources, as in Slurm without gang.
 */
import type { Command } from "./commands.ts";
import type { ClusterState, JobRecord } from "./types.ts";
import { emptyResult, type ApplyEvent, type ApplyResult } from "./apply-result.ts";
import { applyStartJobs } from "./apply-run.ts";
import { chargeAlloc, freeResources, refreshNodeState } from "./resources.ts";
import { isJobFinished } from "./types.ts";
import { StartCheck, type Freed } from "./start-check.ts";

type Preempt = Extract<Command, { type: "preempt" }>;

const SIGCONT = 18;
const SIGSTOP = 19;

export function applyPreempt(state: ClusterState, c: Preempt): ApplyResult {
  // A SUSPEND plan starts its preemptor on what the victims release: when that start no longer
  // holds (the preemptor was cancelled or held, a victim ended, a node went down since the plan),
  // nobody is suspended for it. Checked before anything changes, so a stale plan changes nothing.
  if (c.start !== undefined) {
    const why = new StartCheck(state, c.at).why(c.start, freedBySuspending(state, c.victims));
    if (why !== "") return { ...emptyResult(), items: [{ id: String(c.preemptorId), error: `stale preemption: ${why}`, errorCode: 0 }] };
  }
  const events: ApplyEvent[] = [];
  const ids: number[] = [];
  for (const v of c.victims) {
    const job = state.jobs.get(v.jobId);
    if (job === undefined || !stillPreemptable(job)) continue;
    ids.push(v.jobId);
    const nodes = job.info.alloc.map((a) => a.node);
    if (v.mode === "SUSPEND") {
      suspend(state, job, c.preemptorId, c.at);
      events.push({ type: "signalJob", jobId: v.jobId, nodes, signal: SIGSTOP, reason: "", batchOnly: false });
      continue;
    }
    job.endRequested = v.mode === "REQUEUE" ? "REQUEUE" : "PREEMPTED";
    job.preemptedBy = c.preemptorId;
    if (v.graceSec > 0) job.info.killWaitSec = v.graceSec;
    events.push({ type: "signalJob", jobId: v.jobId, nodes, signal: 0, reason: v.mode === "REQUEUE" ? "REQUEUE" : "CANCELLED", batchOnly: false });
  }
  const result = { ...emptyResult(), ids, events };
  if (c.start !== undefined && ids.length > 0) {
    const started = applyStartJobs(state, { v: 1, type: "startJobs", at: c.at, decisions: [c.start] });
    result.events.push(...started.events);
    result.items.push(...started.items);
  }
  return result;
}

const stillPreemptable = (job: JobRecord): boolean => job.info.state === "RUNNING" && job.endRequested === "";

/** The CPUs and GPUs that suspending the plan's victims (those still running) gives back, per node. */
function freedBySuspending(state: ClusterState, victims: Preempt["victims"]): Freed {
  const freed = new Map<string, { cpus: number; gpuIndices: number[] }>();
  const seen = new Set<number>();
  for (const v of victims) {
    const job = state.jobs.get(v.jobId);
    if (v.mode !== "SUSPEND" || seen.has(v.jobId) || job === undefined || !stillPreemptable(job)) continue;
    seen.add(v.jobId);
    for (const share of job.info.alloc) {
      const f = freed.get(share.node) ?? { cpus: 0, gpuIndices: [] };
      f.cpus += share.cpus;
      f.gpuIndices.push(...share.gpuIndices);
      freed.set(share.node, f);
    }
  }
  return freed;
}

function suspend(state: ClusterState, job: JobRecord, by: number, at: number): void {
  for (const share of job.info.alloc) {
    const node = state.nodes.get(share.node);
    if (node === undefined) continue;
    node.info.allocCpus = Math.max(0, node.info.allocCpus - share.cpus);
    node.gpuByJob.delete(job.info.jobId);
    // Its cores go back too (resume charges them again, the same ids when still free).
    if (node.cpuIdsByJob !== undefined) delete node.cpuIdsByJob[String(job.info.jobId)];
    if (node.socketCpusByJob !== undefined) delete node.socketCpusByJob[String(job.info.jobId)];
    refreshNodeState(node);
  }
  Object.assign(job.info, { state: "SUSPENDED", suspendTime: at, preSusTime: at - job.info.startTime - (job.suspendedSec ?? 0) });
  job.suspendedBy = by;
}

/** CPUs and GPUs a suspended job gives back on resume (its memory was never released). */
export const heldWhileSuspended = (job: JobRecord): boolean => job.suspendedBy !== undefined && job.info.state === "SUSPENDED";

/**
 * After a job ends: resume the suspended jobs whose preemptor is gone and whose CPUs/GPUs are free, oldest suspension first.
 * This runs on every replica for every job end, so the walk copies nothing and reads the record's own
 * suspendedBy before its info (issue 16: spreading 122k jobs into an array and filtering took 12-14 ms a job end).
 */
export function resumeSuspended(state: ClusterState, at: number): ApplyEvent[] {
  const events: ApplyEvent[] = [];
  const waiting: JobRecord[] = [];
  for (const job of state.jobs.values()) if (heldWhileSuspended(job)) waiting.push(job);
  waiting.sort((a, b) => a.info.suspendTime - b.info.suspendTime || a.info.jobId - b.info.jobId);
  for (const job of waiting) {
    if (!canResume(state, job)) continue;
    events.push(resume(state, job, at));
  }
  return events;
}

/**
 * Resume a suspended job: one suspended for a preemptor is charged its CPUs/GPUs
 * back first (the caller checked they are free; its memory was never released).
 */
export function resume(state: ClusterState, job: JobRecord, at: number): ApplyEvent {
  if (job.suspendedBy !== undefined) {
    for (const share of job.info.alloc) {
      const node = state.nodes.get(share.node);
      if (node === undefined) continue;
      const charged = { ...share, memMib: 0 };
      chargeAlloc(node, job.info.jobId, charged, job.spec);
      Object.assign(share, { cpuIds: charged.cpuIds, socketCpus: charged.socketCpus });
    }
  }
  job.suspendedSec = (job.suspendedSec ?? 0) + Math.max(0, at - job.info.suspendTime);
  // As Slurm: suspendTime is the last suspend or resume; squeue's TIME is now - suspendTime + preSusTime.
  Object.assign(job.info, { state: "RUNNING", suspendTime: at });
  if (job.info.timeLimitMin !== undefined) job.info.endTime = job.info.startTime + job.suspendedSec + job.info.timeLimitMin * 60;
  delete job.suspendedBy;
  return { type: "signalJob", jobId: job.info.jobId, nodes: job.info.alloc.map((a) => a.node), signal: SIGCONT, reason: "", batchOnly: false };
}

/** `scontrol suspend`: SIGSTOP, state SUSPENDED; an administrator's suspension keeps all of the job's resources. */
export function suspendByAdmin(job: JobRecord, at: number): ApplyEvent {
  Object.assign(job.info, { state: "SUSPENDED", suspendTime: at, preSusTime: at - job.info.startTime - (job.suspendedSec ?? 0) });
  return { type: "signalJob", jobId: job.info.jobId, nodes: job.info.alloc.map((a) => a.node), signal: SIGSTOP, reason: "", batchOnly: false };
}

/** Whether a suspended job may be resumed now: its preemptor (if any) is gone and its CPUs/GPUs are free. */
export function canResume(state: ClusterState, job: JobRecord): boolean {
  if (job.suspendedBy === undefined) return true;
  const preemptor = state.jobs.get(job.suspendedBy);
  if (preemptor !== undefined && !isJobFinished(preemptor.info) && preemptor.info.state !== "PENDING") return false;
  return fitsAgain(state, job);
}

function fitsAgain(state: ClusterState, job: JobRecord): boolean {
  return job.info.alloc.every((share) => {
    const node = state.nodes.get(share.node);
    if (node === undefined || node.down) return false;
    const free = freeResources(node);
    return share.cpus <= free.cpus && share.gpuIndices.every((g) => free.gpuIndices.includes(g));
  });
}
