/**
 * @module sched/model/apply-signal
 * `--signal=[{R|B}:]SIG[@TIME]`: the job asked to be sent SIG TIME seconds
 * before its end time. The spec is stored normalised ("B:10@50", "12@60") by
 * the option parser. Pure parts: reading that text, deciding when the signal is
 * due, and applying the `signalBeforeEnd` command that the leader's time-limit
 * loop issues. The command records on the job which run it was sent for (its
 * start time), so it is sent once per run, across restarts and failover alike,
 * and again after a requeue. `B:` signals the batch shell only; the plain form
 * (and `R:`, which here means the same) signals the job's steps: for a batch
 * job not the batch shell itself, as in Slurm.
 */
import type { Command } from "./commands.ts";
import { emptyResult, type ApplyResult } from "./apply-result.ts";
import type { ClusterState, JobRecord } from "./types.ts";

type Of<T extends Command["type"]> = Extract<Command, { type: T }>;

export interface SignalSpec {
  signal: number;
  /** Seconds before the end time. */
  beforeSec: number;
  /** `B:`: only the batch shell. */
  batchOnly: boolean;
}

/** The stored normalised form; undefined when empty or not readable. */
export function parseStoredSignal(text: string): SignalSpec | undefined {
  const m = /^(?:([RB]):)?(\d+)@(\d+)$/.exec(text);
  if (m === null) return undefined;
  const signal = Number(m[2]);
  if (signal <= 0) return undefined;
  return { signal, beforeSec: Number(m[3]), batchOnly: m[1] === "B" };
}

/** Epoch second at which the job's signal is due; undefined when it has none or no time limit. */
export function signalDueAt(job: JobRecord): number | undefined {
  const spec = parseStoredSignal(job.info.signal);
  const limitMin = job.info.timeLimitMin;
  if (spec === undefined || limitMin === undefined) return undefined;
  return job.info.startTime + (job.suspendedSec ?? 0) + limitMin * 60 - spec.beforeSec;
}

/** Whether the leader should issue `signalBeforeEnd` for this job at `now`. */
export function signalDue(job: JobRecord, now: number): boolean {
  if (job.info.state !== "RUNNING" || job.endRequested !== "") return false;
  if (job.warnSignalSentFor === job.info.startTime) return false;
  const due = signalDueAt(job);
  return due !== undefined && due <= now;
}

export function applySignalBeforeEnd(state: ClusterState, c: Of<"signalBeforeEnd">): ApplyResult {
  const job = state.jobs.get(c.jobId);
  // Re-checked as the leader checked it: the time limit may have changed, or the job restarted, since.
  if (job === undefined || !signalDue(job, c.at)) return emptyResult();
  const spec = parseStoredSignal(job.info.signal);
  if (spec === undefined) return emptyResult();
  job.warnSignalSentFor = job.info.startTime;
  const nodes = job.info.alloc.map((a) => a.node);
  return {
    ...emptyResult(),
    events: [{ type: "signalJob", jobId: c.jobId, nodes, signal: spec.signal, reason: "", batchOnly: spec.batchOnly, stepsOnly: !spec.batchOnly }],
  };
}
