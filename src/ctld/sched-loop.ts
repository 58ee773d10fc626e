/**
 * @module ctld/sched-loop
 * The scheduler's shell: a pass of the pure schedule() on a debounced kick (at most one timer
 * armed; the next pass waits at least as long as the last one took, so RPCs get half the loop,
 * between 20 ms and 5 s), its start decisions proposed as one command, one in flight at a
 * time. It keeps what the last pass found (pending reasons, priorities, the backfill plan) for
 * the views; a held job's reason is its hold, and it has no priority to explain (sprio leaves
 * it out, as Slurm's does; squeue shows its priority, 0), which the pass does not list. Nor
 * does it list a job waiting for its begin time (plan/begin-jobs.ts): its reason is BeginTime
 * and its priority is computed from the pass's context when asked, as the pass would have.
 * Failure policy: a pass that throws is logged and the next kick tries again;
 * uncommitted decisions are simply made again by a later pass.
 */
import type { ConsolaInstance } from "consola/core";
import type { Clock, TimerHandle } from "../lib/clock.ts";
import type { ApplyResult } from "../sched/model/apply.ts";
import type { Command } from "../sched/model/commands.ts";
import type { ClusterState, JobRecord } from "../sched/model/types.ts";
import { planPreemption } from "../sched/plan/preempt.ts";
import { explainPriority, newJobWalkMemo, sameWaitingFactors, type JobPriority, type PriorityContext } from "../sched/plan/priority.ts";
import { beginWaitReason } from "../sched/plan/begin-jobs.ts";
import { schedule, type Reservation } from "../sched/plan/schedule.ts";
import { heldReason } from "../sched/plan/eligibility.ts";
import { recordPass, type SchedCounters } from "./sched-stats.ts";

export interface SchedLoopDeps {
  state: ClusterState;
  clock: Clock;
  now(): number;
  logger: Pick<ConsolaInstance, "info" | "warn" | "error">;
  counters: SchedCounters;
  acting(): boolean;
  execute(command: Command): Promise<ApplyResult>;
  executeInternal(command: Command): void;
  diskFull(): boolean;
  /** The job views may have changed (reasons, priorities or plan moved). */
  viewsChanged(): void;
  onSchedulerPass?: ((pass: { seconds: number; started: number }) => void) | undefined;
  /** Queue held jobs like any other (the reference path, for the bench and tests); the default leaves them out (plan/held-jobs.ts). */
  queueHeld?: boolean;
  /** Queue jobs waiting for their begin time like any other (the reference path); the default leaves them out (plan/begin-jobs.ts). */
  queueBegin?: boolean;
}

export interface SchedLoop {
  kick(): void;
  stop(): void;
  /** Leadership lost: the reasons of the last pass no longer hold. */
  clearReasons(): void;
  reasonOf(jobId: number): string | undefined;
  /** With `partition`: as the job ranks in that one of the partitions it lists. */
  priorityOf(jobId: number, partition?: string): JobPriority | undefined;
  plannedStart(jobId: number): Reservation | undefined;
  plannedNodes(): ReadonlySet<string>;
}

function sameEntries<K, V>(a: ReadonlyMap<K, V>, b: ReadonlyMap<K, V>): boolean {
  if (a.size !== b.size) return false;
  // forEach, not for-of: a pass's maps are IdMaps of 100k entries, whose forEach is a plain loop (no iterator objects)
  let same = true;
  a.forEach((v, k) => {
    if (same && b.get(k) !== v) same = false;
  });
  return same;
}

function samePlan(before: ReadonlyMap<number, Reservation>, after: readonly Reservation[]): boolean {
  if (before.size !== after.length) return false;
  for (const r of after) {
    const old = before.get(r.jobId);
    if (old === undefined || old.startTime !== r.startTime || old.nodes.join(",") !== r.nodes.join(",")) return false;
  }
  return true;
}

/** A pending held job's reason, which the pass leaves out of its reasons (schedule's omitHeld); undefined for any other job. */
function holdOf(state: ClusterState, jobId: number): string | undefined {
  const job = state.jobs.get(jobId);
  return job !== undefined && job.info.state === "PENDING" && job.info.priority === 0 ? heldReason(job) : undefined;
}

export function createSchedLoop(d: SchedLoopDeps): SchedLoop {
  const { state, clock, logger } = d;
  let reasons: ReadonlyMap<number, string> = new Map();
  /** A pass has run since leadership was (re)gained: a held job's reason is then its hold, as the pass left it implicit. */
  let passed = false;
  let priorities = new Map<number, number>();
  let priorityContext: PriorityContext | undefined;
  let planned = new Map<number, Reservation>();
  /**
   * What the last pass left out as waiting for their begin time: the jobs it saw (submitted
   * before `sequence`), pending, not held and to begin after its `now`, that are in neither map.
   */
  let leftOut = { count: 0, now: 0, sequence: 0, appliedIndex: -1 };
  let kickTimer: TimerHandle | undefined;
  /** Time the last pass took: the next one waits at least as long, so RPCs get half the loop. */
  let lastPassMs = 0;
  let passInFlight = false;
  /** After stop() no pass is armed again (a command applied while shutting down must not start one). */
  let stopped = false;
  /** The pass's walk over every job, made again only once a command has been applied (the periodic pass of an idle controller reuses it). */
  const walk = newJobWalkMemo();

  /** The pass's side commands: expired deadlines, dependencies that can never be met, a preemption. */
  function sideCommands(result: ReturnType<typeof schedule>, now: number): void {
    if (result.expired.length > 0) d.executeInternal({ v: 1, type: "deadlineExpired", at: now, jobIds: result.expired });
    if (result.invalidDeps.length > 0) d.executeInternal({ v: 1, type: "dependencyNeverSatisfied", at: now, jobIds: result.invalidDeps });
    const preemption = planPreemption(state, result.reasons, result.priorities);
    if (preemption !== undefined) {
      logger.info({ message: "preempting", jobId: preemption.preemptorId, victims: preemption.victims.map((v) => v.jobId) });
      d.executeInternal({ v: 1, type: "preempt", at: now, ...preemption });
    }
  }

  function runPass(): void {
    // One start decision in flight at a time: the next pass must see its allocations.
    if (!d.acting() || passInFlight) return;
    const now = d.now();
    const startMs = clock.monotonicMs();
    const cfg = state.config.sched;
    const result = schedule(state, now, cfg, {
      maxJobsExamined: cfg.maxJobsPerPass, clockMs: () => clock.monotonicMs(), omitHeld: d.queueHeld !== true, omitBegin: d.queueBegin !== true, walk,
    });
    passed = true;
    // the priorities left to be computed on demand move when the context's inputs do: the state's (any command) or fair
    // share's decay; without a context (priority/basic) such a priority is the job's own field, which the views read live
    const contexts = priorityContext !== undefined || result.priorityContext !== undefined;
    const waitingMoved = (leftOut.count > 0 || result.beginOmitted > 0) && contexts &&
      (leftOut.appliedIndex !== state.appliedIndex || !sameWaitingFactors(priorityContext, result.priorityContext));
    // A pass that leaves every reason, priority and plan as it was leaves the listing cache warm.
    if (waitingMoved || !sameEntries(reasons, result.reasons) || !sameEntries(priorities, result.priorities) || !samePlan(planned, result.reservations)) d.viewsChanged();
    // the pass's own map, kept as it is (a copy of 100k reasons cost the leader ~10 ms a pass)
    reasons = result.reasons;
    priorities = result.priorities;
    priorityContext = result.priorityContext;
    leftOut = { count: result.beginOmitted, now, sequence: state.nextSequence, appliedIndex: state.appliedIndex };
    planned = new Map(result.reservations.map((r) => [r.jobId, r]));
    recordPass(d.counters, result.stats, now, cfg.schedulerType === "sched/backfill");
    lastPassMs = clock.monotonicMs() - startMs;
    const seconds = lastPassMs / 1000;
    sideCommands(result, now);
    if (result.decisions.length === 0) {
      d.onSchedulerPass?.({ seconds, started: 0 });
      return;
    }
    passInFlight = true;
    d.execute({ v: 1, type: "startJobs", at: now, decisions: result.decisions })
      .then((r) => d.onSchedulerPass?.({ seconds, started: r.ids.length }))
      .catch((error) => {
        if (!d.diskFull()) logger.warn({ message: "start decisions not committed", error: String(error) });
      })
      .finally(() => {
        passInFlight = false;
      });
  }

  /** The job, when the last pass left it out as waiting for its begin time. */
  function waitingJob(jobId: number): JobRecord | undefined {
    if (leftOut.count === 0) return undefined;
    const job = state.jobs.get(jobId);
    return job !== undefined && job.sequence < leftOut.sequence && beginWaitReason(job, leftOut.now) !== undefined ? job : undefined;
  }

  return {
    kick() {
      if (kickTimer !== undefined || stopped) return;
      kickTimer = clock.setTimeout(() => {
        kickTimer = undefined;
        try {
          runPass();
        } catch (error) {
          logger.error({ message: "scheduler pass failed", error: String(error) });
        }
      }, Math.max(20, Math.min(5_000, lastPassMs)));
    },
    stop() {
      stopped = true;
      clock.clear(kickTimer);
      kickTimer = undefined;
    },
    clearReasons: () => {
      reasons = new Map();
      passed = false;
    },
    reasonOf: (jobId) => reasons.get(jobId) ?? (passed ? (holdOf(state, jobId) ?? (waitingJob(jobId) === undefined ? undefined : "BeginTime")) : undefined),
    priorityOf: (jobId, partition) => {
      const value = priorities.get(jobId);
      if (value === undefined) {
        const waiting = waitingJob(jobId);
        // the value priorityValue gives from the pass's context, which the pass would have ordered by
        return waiting === undefined ? undefined : explainPriority(waiting, priorityContext, partition);
      }
      const job = state.jobs.get(jobId);
      if (job === undefined) return undefined;
      // as it ranks in one of the partitions it lists: from the pass's inputs for that partition
      if (partition !== undefined) return explainPriority(job, priorityContext, partition);
      // The factors from the pass's own inputs; the value exactly as the pass ordered by it.
      return { ...explainPriority(job, priorityContext), priority: value };
    },
    plannedStart: (jobId) => planned.get(jobId),
    plannedNodes: () => {
      const out = new Set<string>();
      for (const r of planned.values()) for (const n of r.nodes) out.add(n);
      return out;
    },
  };
}
