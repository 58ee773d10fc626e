/**
 * @module sched/plan/begin-jobs
 * Jobs waiting for their begin time (sbatch --begin, scontrol update StartTime=) outside the
 * pass's queue. Until `now` reaches its begin time such a job's reason is BeginTime whatever
 * else holds (eligibility tests it right after the hold), so it starts, blocks and reserves
 * nothing: queued, it only costs the pass its priority (~0.5 µs), a heap slot, an eligibility
 * test and entries in the reason and priority maps (100k of them: ~200 ms a pass,
 * bench/sched-held.ts BEGIN=). Each pass sorts the jobs again by `now`, so one is queued by the
 * first pass at or after its begin time (the controller kicks a pass every second).
 * Left out, the decisions and every other job's reason are what they are with it queued
 * (tests/unit/sched/begin-omitted.test.ts): where it sits in the queue does not matter, since
 * its only effect there is to keep its partition "open" (jobs left) a while longer, and after
 * the point where the pass stops for every partition with jobs left being blocked, the jobs
 * left get the reasons they would get in the loop (eligibility, else Priority; the deferred
 * ones past bf_max_job_test are never tested). Queued, its reason would be BeginTime, or
 * DeadLine, which settleBegin gives; its priority is the one priorityValue gives from the same
 * context, which the scheduler loop computes when a view asks (ctld/sched-loop.ts).
 * Where that does not hold they are queued as before: a pending het job anywhere (a component
 * left to the tail's own eligibility reads differently from one that follows its leader), a
 * jobs-examined budget that could end the pass among them.
 */
import type { JobRecord } from "../model/types.ts";
import { priorityValues, type Priorities } from "./priority.ts";
import { isHetComponent } from "../model/het.ts";
import { deadlinePassed } from "../model/deadline.ts";
import { assert } from "../../lib/assert.ts";

/** True when the jobs waiting for their begin time must go through the queue for the pass to decide as it would with them there. */
export function mustQueueBegin(p: Priorities, maxJobsExamined: number): boolean {
  if (p.begin.length === 0) return false;
  if (maxJobsExamined < p.pending.length + p.held.length + p.begin.length) return true;
  for (const job of p.beginNoted) if (isHetComponent(job.info)) return true;
  for (const job of p.pending) if (isHetComponent(job.info)) return true;
  return false;
}

/** The priorities with the jobs waiting for their begin time among the pending ones: what computePriorities gives without omitBegin. */
export function withBeginQueued(p: Priorities): Priorities {
  const values = priorityValues(p.begin, p.context, p.values);
  const pending = p.pending.concat(p.begin);
  const pendingValues = new Float64Array(pending.length);
  pendingValues.set(p.pendingValues);
  pendingValues.set(values, p.pendingValues.length);
  assert(pendingValues.length === p.pendingValues.length + p.begin.length, "every job waiting for its begin time is queued");
  return { ...p, pending, pendingValues, begin: [], beginNoted: [] };
}

/** The left-out jobs' part of the pass (`noted`: those of them with a deadline): one whose deadline has passed gets DeadLine (the shell ends it); the others' reason is BeginTime. */
export function settleBegin(noted: readonly JobRecord[], now: number, reasons: Map<number, string>, expired: number[]): void {
  for (const job of noted) {
    if (job.info.deadline <= 0 || !deadlinePassed(job, now)) continue;
    expired.push(job.info.jobId);
    reasons.set(job.info.jobId, "DeadLine");
  }
}

/** The reason a pass that left `job` out (as one waiting for its begin time after `passNow`) gave it: BeginTime; undefined for a job it did not leave out so. */
export function beginWaitReason(job: JobRecord, passNow: number): string | undefined {
  const info = job.info;
  return info.state === "PENDING" && info.priority !== 0 && info.eligibleTime > passNow ? "BeginTime" : undefined;
}
