/**
 * @module sched/model/deadline
 * `--deadline`: whether a pending job can still meet it (pure). Used by the start check in
 * apply and by the planner, so it sits in a leaf below both.
 */
import type { JobRecord } from "./types.ts";

/** A pending job with a deadline that it can no longer meet if started at `now` (its time limit counts). */
export function deadlinePassed(job: JobRecord, now: number): boolean {
  const deadline = job.info.deadline;
  if (deadline <= 0) return false;
  return now + (job.info.timeLimitMin ?? 0) * 60 > deadline;
}
