/**
 * @module ctld/sched-stats
 * The counters `sdiag` shows: jobs submitted/started/completed/canceled/failed
 * and main and backfill cycle statistics. They describe this controller
 * process, not the cluster's state, so they live outside the replicated state
 * (like Slurm's, they restart from zero with the daemon) and are never logged.
 */
import type { ScheduleStats } from "../sched/plan/schedule.ts";

export interface CycleCounters {
  cycles: number;
  lastUs: number;
  maxUs: number;
  totalUs: number;
  depthTotal: number;
  lastDepth: number;
  lastQueueLength: number;
}

export interface SchedCounters {
  since: number;
  jobsSubmitted: number;
  jobsStarted: number;
  jobsCompleted: number;
  jobsCanceled: number;
  jobsFailed: number;
  /** Committed commands that apply() could not apply at all (APPLY_FAILED: a bug; logged once each). */
  applyFailures: number;
  /** Start decisions rejected as stale (something changed between the pass and its commit). */
  staleDecisions: number;
  main: CycleCounters;
  bf: CycleCounters & {
    backfilledTotal: number;
    lastWhen: number;
    lastDepthTrySched: number;
    lastTableSize: number;
    /** Sums over the backfill cycles, for sdiag's "Depth Mean (try depth)", "Queue length mean", "Mean table size". */
    depthTrySchedTotal: number;
    queueLengthTotal: number;
    tableSizeTotal: number;
  };
}

const cycle = (): CycleCounters => ({ cycles: 0, lastUs: 0, maxUs: 0, totalUs: 0, depthTotal: 0, lastDepth: 0, lastQueueLength: 0 });

export function newSchedCounters(now: number): SchedCounters {
  return {
    since: now, jobsSubmitted: 0, jobsStarted: 0, jobsCompleted: 0, jobsCanceled: 0, jobsFailed: 0, applyFailures: 0, staleDecisions: 0,
    main: cycle(),
    bf: { ...cycle(), backfilledTotal: 0, lastWhen: 0, lastDepthTrySched: 0, lastTableSize: 0, depthTrySchedTotal: 0, queueLengthTotal: 0, tableSizeTotal: 0 },
  };
}

function addCycle(c: CycleCounters, us: number, depth: number, queue: number): void {
  c.cycles += 1;
  c.lastUs = us;
  c.maxUs = Math.max(c.maxUs, us);
  c.totalUs += us;
  c.depthTotal += depth;
  c.lastDepth = depth;
  c.lastQueueLength = queue;
}

/** One scheduling pass: the main part always, the backfill part when it tested anything. */
export function recordPass(c: SchedCounters, s: ScheduleStats, now: number, backfill: boolean): void {
  addCycle(c.main, s.mainUs, s.mainExamined, s.queueLength);
  if (!backfill) return;
  addCycle(c.bf, s.bfUs, s.bfExamined, s.queueLength);
  c.bf.backfilledTotal += s.backfilled;
  c.bf.lastWhen = now;
  c.bf.lastDepthTrySched = s.bfTrySched;
  c.bf.lastTableSize = s.timelineSlots;
  c.bf.depthTrySchedTotal += s.bfTrySched;
  c.bf.queueLengthTotal += s.queueLength;
  c.bf.tableSizeTotal += s.timelineSlots;
}

/** A job reached a final state: count it as Slurm's sdiag does. */
export function recordEnd(c: SchedCounters, state: string): void {
  if (state === "COMPLETED") c.jobsCompleted += 1;
  else if (state === "CANCELLED") c.jobsCanceled += 1;
  else if (state !== "PENDING" && state !== "RUNNING") c.jobsFailed += 1;
}
