/**
 * @module sched/plan/held-jobs
 * Held jobs (priority 0) outside the pass's queue. A held job can only wait for its release:
 * its reason is its hold (JobHeldUser / JobHeldAdmin), its priority 0, it starts and reserves
 * nothing and sorts after every other job. With 100k of them, a heap slot, an eligibility test
 * and an entry in the pass's reason and priority maps each cost the leader ~200 ms a pass
 * (bench/sched-held.ts); left out, each costs one look at its deadline. The decisions and every
 * other job's reason stay what they are with the held jobs queued (tests/unit/sched/
 * held-omitted.test.ts), because they come last in the queue (every other job has priority >= 1),
 * they still count in their partition's pending jobs (so the main pass stops where it did), and
 * queued they would get their hold as reason, or DeadLine, which settleHeld gives. Where that
 * does not hold they are queued as before: a held part of a het job (its reason follows its
 * leader's), a jobs-examined budget that could end the pass among them, a job of priority <= 0
 * that is not held (never expected: it would sort among them).
 */
import type { JobRecord } from "../model/types.ts";
import type { Priorities } from "./priority.ts";
import { isHetComponent } from "../model/het.ts";
import { deadlinePassed } from "../model/deadline.ts";
import { assert } from "../../lib/assert.ts";

/** What the pass needs of the held jobs, read in one walk over them. */
export interface HeldSummary {
  /** Held jobs per partition: they count among its pending jobs (see pendingQueue). */
  byPartition: Map<string, number>;
  /** Some held job is part of a het job. */
  hetComponent: boolean;
  /** The held jobs with a deadline, the only ones whose reason can be other than their hold. */
  withDeadline: JobRecord[];
}

/** Summaries by list: a controller's pass gets the same list of held jobs while the state is unchanged (priority.ts JobWalkMemo). */
const summaries = new WeakMap<readonly JobRecord[], HeldSummary>();

export function summarizeHeld(held: readonly JobRecord[]): HeldSummary {
  const known = summaries.get(held);
  if (known !== undefined) return known;
  const summary = summarize(held);
  summaries.set(held, summary);
  return summary;
}

function summarize(held: readonly JobRecord[]): HeldSummary {
  const byPartition = new Map<string, number>();
  const withDeadline: JobRecord[] = [];
  let hetComponent = false;
  // held jobs come in runs of one partition (a user's batch of sbatch --hold): count runs, not jobs, in the map
  let run = "";
  let runLength = 0;
  for (const job of held) {
    const info = job.info;
    if (info.partition !== run) {
      if (runLength > 0) byPartition.set(run, (byPartition.get(run) ?? 0) + runLength);
      run = info.partition;
      runLength = 0;
    }
    runLength++;
    if (info.deadline > 0) withDeadline.push(job);
    if (!hetComponent && isHetComponent(info)) hetComponent = true;
  }
  if (runLength > 0) byPartition.set(run, (byPartition.get(run) ?? 0) + runLength);
  return { byPartition, hetComponent, withDeadline };
}

/** True when the held jobs must go through the queue for the pass to decide as it would with them there. */
export function mustQueueHeld(p: Priorities, summary: HeldSummary, maxJobsExamined: number): boolean {
  if (p.held.length === 0) return false;
  // the jobs left out as waiting for their begin time (plan/begin-jobs.ts) count: queued, they come before the held ones
  if (summary.hetComponent || maxJobsExamined < p.pending.length + p.held.length + p.begin.length) return true;
  for (let i = 0; i < p.pendingValues.length; i++) if ((p.pendingValues[i] as number) <= 0) return true;
  return false;
}

/** The priorities with the held jobs among the pending ones at their priority, 0: what computePriorities gives without omitHeld. */
export function withHeldQueued(p: Priorities): Priorities {
  const pending = p.pending.concat(p.held);
  const pendingValues = new Float64Array(pending.length);
  pendingValues.set(p.pendingValues);
  for (const job of p.held) {
    assert(job.info.priority === 0, "only held jobs are left out of the queue");
    p.values.set(job.info.jobId, 0);
  }
  assert(pendingValues.length === p.pendingValues.length + p.held.length, "every held job is queued");
  return { ...p, pending, pendingValues, held: [] };
}

/** The held jobs' part of the pass: one whose deadline has passed gets DeadLine (the shell ends it); the others' reason is their hold. */
export function settleHeld(summary: HeldSummary, now: number, reasons: Map<number, string>, expired: number[]): void {
  for (const job of summary.withDeadline) {
    if (!deadlinePassed(job, now)) continue;
    expired.push(job.info.jobId);
    reasons.set(job.info.jobId, "DeadLine");
  }
}
