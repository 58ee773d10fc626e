/**
 * @module ctld/controller
 * The controller's shell around the pure core: it owns the state, makes every
 * command durable before applying it (single controller: appended to the local
 * log; replicated: proposed through Raft and applied once committed, on every
 * replica, by the same apply()), runs the scheduler on a debounced tick,
 * enforces time limits and node timeouts, and performs the side effects that
 * apply() returns as events (launching scripts, signalling agents). With Raft
 * only the serving leader schedules, enforces and acts; followers just apply.
 * Failure policy: a failed launch requeues the job; an agent that stays silent
 * past SlurmdTimeout is marked down and its jobs end NODE_FAIL.
 */
import type { ConsolaInstance } from "consola/core";
import { runsBatchScript } from "../sched/model/het.ts";
import { APPLY_FAILED, apply, type ApplyEvent, type ApplyResult } from "../sched/model/apply.ts";
import type { Command } from "../sched/model/commands.ts";
import type { ClusterState, JobRecord } from "../sched/model/types.ts";
import { isJobFinished } from "../sched/model/types.ts";
import { schedule, type Reservation } from "../sched/plan/schedule.ts";
import { explainPriority, type JobPriority, type PriorityContext } from "../sched/plan/priority.ts";
import { planPreemption } from "../sched/plan/preempt.ts";
import { dueCommands } from "../sched/model/due.ts";
import { newSchedCounters, recordEnd, recordPass, type SchedCounters } from "./sched-stats.ts";
import type { LogStore } from "./log-store.ts";
import { Code, ConnectError } from "@connectrpc/connect";
import { diskFullReporter, isDiskFull, NO_SPACE_MESSAGE } from "../lib/store-full.ts";
import type { AgentLink } from "./agent-link.ts";
import { assert } from "../lib/assert.ts";
import { scriptsInForce, type CtldScripts, type ScriptRunner } from "./ctld-scripts.ts";
import { createJobLauncher } from "./job-launch.ts";
import { dueTriggers } from "../sched/model/triggers.ts";
import { runTriggerProgram, triggerView } from "./trigger-run.ts";

/** Replicated mode: commands go through consensus; the driver calls applyCommitted(). */
export interface Replication {
  propose(command: Command): Promise<ApplyResult>;
  /** Leader whose state is caught up with everything committed before its term. */
  isServing(): boolean;
}

export interface ControllerDeps {
  state: ClusterState;
  /** Single-controller mode: the local command log. */
  log?: LogStore;
  /** Replicated mode (exactly one of log / replication). */
  replication?: Replication;
  agents: AgentLink;
  logger: ConsolaInstance;
  now: () => number;
  schedIntervalMs?: number;
  /** Told after every scheduling pass (metrics): its wall time and how many jobs it started. */
  onSchedulerPass?: (pass: { seconds: number; started: number }) => void;
  /** PrologSlurmctld / EpilogSlurmctld (batch jobs), as read at start (a reconfigure replaces them). */
  scripts?: CtldScripts;
  /** Runs those scripts (the role wires the process runner in); without it a configured script fails. */
  runScript?: ScriptRunner;
}

interface Waiter {
  jobId: number;
  until: Set<string>;
  resolve: () => void;
}

export interface Controller {
  readonly state: ClusterState;
  /** Make `command` durable (log or consensus), apply it, answer its result. */
  execute(command: Command): Promise<ApplyResult>;
  /** Replicated mode: the driver applies a committed command here, on every replica (`index`: its log index, for the log). */
  applyCommitted(command: Command, index?: number): ApplyResult;
  /** Replicated mode: this replica became (or stopped being) the serving leader. */
  leadershipChanged(serving: boolean): void;
  /** Pending reasons from the last scheduling pass. */
  reasonOf(jobId: number): string | undefined;
  /** Priority (with factors) and planned start from the last scheduling pass. */
  priorityOf(jobId: number): JobPriority | undefined;
  plannedStart(jobId: number): Reservation | undefined;
  /** Nodes the last pass's backfill plan holds for pending jobs (sinfo shows the idle ones as PLANNED). */
  plannedNodes(): ReadonlySet<string>;
  /**
   * Changes whenever what the job views show may have changed other than through the log
   * (a scheduling pass's reasons, priorities or plan; leadership): with state.appliedIndex it
   * keys the listing cache (ctld/list-cache.ts).
   */
  viewsVersion(): number;
  /** sdiag counters (not replicated: they describe this process). */
  schedCounters(): SchedCounters;
  /**
   * Committed commands skipped as not applicable (ApplyFailed) since this process started, also
   * those skipped by the start-up replay or by the Raft driver (an entry it could not decode):
   * never reset (sdiag --reset clears only sdiag's own count). The metric spur_apply_failed_total.
   */
  applyFailedTotal(): number;
  /** Entries skipped outside applyCommitted (start-up replay, the Raft driver): counted like ApplyFailed. */
  noteSkippedEntries(count: number): void;
  kick(): void;
  waitFor(jobId: number, until: string[], timeoutMs: number): Promise<void>;
  heartbeat(node: string): void;
  lastHeartbeat(node: string): number | undefined;
  start(): () => void;
}

function sameEntries<K, V>(a: ReadonlyMap<K, V>, b: ReadonlyMap<K, V>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

function samePlan(before: ReadonlyMap<number, Reservation>, after: readonly Reservation[]): boolean {
  if (before.size !== after.length) return false;
  for (const r of after) {
    const old = before.get(r.jobId);
    if (old === undefined || old.startTime !== r.startTime || old.nodes.join(",") !== r.nodes.join(",")) return false;
  }
  return true;
}

export function createController(deps: ControllerDeps): Controller {
  const { state, logger } = deps;
  assert((deps.log === undefined) !== (deps.replication === undefined), "exactly one of log / replication");
  const reasons = new Map<number, string>();
  let priorities = new Map<number, number>();
  let priorityContext: PriorityContext | undefined;
  let planned = new Map<number, Reservation>();
  const counters = newSchedCounters(deps.now());
  let applyFailed = 0;
  const heartbeats = new Map<string, number>();
  const waiters: Waiter[] = [];
  let kickTimer: ReturnType<typeof setTimeout> | undefined;
  /** Wall time of the last pass: the next one waits at least as long, so RPCs get half the loop. */
  let lastPassMs = 0;
  let viewsSeq = 0;

  const diskFull = diskFullReporter(logger, "command log");
  let stopLoops: (() => void) | undefined;
  let passInFlight = false;
  let triggersInFlight = false;
  const acting = (): boolean => deps.replication === undefined || deps.replication.isServing();

  /** Commands waiting for the next group commit (single controller: one transaction, one fsync). */
  let pending: { command: Command; resolve: (r: ApplyResult) => void; reject: (e: unknown) => void }[] = [];

  function execute(command: Command): Promise<ApplyResult> {
    if (deps.replication !== undefined) return deps.replication.propose(command);
    // Commands that arrive in one turn of the event loop (concurrent submissions) are written
    // together after it: one durable append for all, then applied in log order, each caller
    // answered after its own entry is on disk and applied.
    return new Promise((resolve, reject) => {
      pending.push({ command, resolve, reject });
      if (pending.length === 1) setImmediate(commitPending);
    });
  }

  function commitPending(): void {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    const log = deps.log as LogStore;
    let first: number;
    try {
      first = log.appendMany(batch.map((b) => b.command));
      diskFull.succeeded();
    } catch (error) {
      // Nothing was stored, so nothing is applied: every caller hears ENOSPC and may retry.
      const full = isDiskFull(error);
      if (full) diskFull.failed(error);
      for (const b of batch) b.reject(full ? new ConnectError(NO_SPACE_MESSAGE, Code.ResourceExhausted) : error);
      return;
    }
    batch.forEach((b, k) => {
      try {
        const result = applyCommitted(b.command, first + k);
        assert(state.appliedIndex === first + k, `applied index ${state.appliedIndex} follows log index ${first + k}`);
        b.resolve(result);
      } catch (error) {
        b.reject(error);
      }
    });
  }

  /** Commands issued by the controller itself: nobody waits for them, failures are logged. */
  function executeInternal(command: Command): void {
    execute(command).catch((error) => {
      // A full disk is logged once where it is found (the log store, or the Raft driver), not per command.
      const noSpace = error instanceof ConnectError && error.code === Code.ResourceExhausted;
      if (!diskFull.isFull() && !noSpace) logger.warn({ message: "command not committed", type: command.type, error: String(error) });
    });
  }

  const launcher = createJobLauncher({
    state, agents: deps.agents, logger, now: deps.now, acting, executeInternal,
    scripts: () => scriptsInForce(state.reconfigured, deps.scripts),
    runScript: deps.runScript ?? (async () => ({ ok: false, why: "no script runner" })),
  });

  function applyCommitted(command: Command, index?: number): ApplyResult {
    viewsSeq++;
    const result = apply(state, command);
    noteFailure(command, result, index);
    if (command.type === "submit") counters.jobsSubmitted += result.ids.length;
    for (const event of result.events) {
      if (acting() || event.type === "jobStarted" || event.type === "jobFinished") handleEvent(event);
    }
    if (acting() && (command.type !== "startJobs" || result.ids.length > 0) && !submittedHeldOnly(command, result)) kick();
    return result;
  }

  /**
   * A submission whose jobs are all held (priority 0) can start nothing and frees nothing:
   * no pass for it (the periodic one still ranks it). Under a stream of held submissions
   * (a workflow manager's, or bench/scale) a pass per commit would take half the leader.
   */
  function submittedHeldOnly(command: Command, result: ApplyResult): boolean {
    if (command.type !== "submit" || result.ids.length === 0) return false;
    return result.ids.every((id) => state.jobs.get(id)?.info.priority === 0);
  }

  /**
   * apply() is total: a committed command it could not apply comes back APPLY_FAILED (the same
   * on every replica) and is skipped; it is logged once here, with its log index, and counted.
   * Stale start decisions are normal (a cancel raced the pass) and only counted.
   */
  function noteFailure(command: Command, result: ApplyResult, index: number | undefined): void {
    if (result.errorCode === APPLY_FAILED) {
      noteSkippedEntries(1);
      logger.error({ message: "committed command not applied (skipped on every replica)", index: index ?? state.appliedIndex, type: command.type, error: result.error });
    }
    if (command.type === "startJobs" || command.type === "preempt") counters.staleDecisions += result.items.filter((i) => i.error !== "").length;
  }

  function noteSkippedEntries(count: number): void {
    counters.applyFailures += count;
    applyFailed += count;
  }

  /** Leader duties begin: agents get a full timeout, running jobs are (idempotently) re-launched. */
  function beginLeading(): void {
    const now = deps.now();
    for (const node of state.nodes.values()) if (node.info.state !== "UNKNOWN") heartbeats.set(node.info.name, now);
    relaunchRunning();
    kick();
  }

  function handleEvent(event: ApplyEvent): void {
    switch (event.type) {
      case "launchBatch":
        void launcher.launch(event.jobId);
        break;
      case "signalJob":
        for (const node of event.nodes) void deps.agents.signalJob(node, event, state).catch(() => undefined);
        break;
      case "jobStarted":
        counters.jobsStarted += 1;
        notifyWaiters(event.jobId);
        break;
      case "jobFinished":
        recordEnd(counters, state.jobs.get(event.jobId)?.info.state ?? "");
        notifyWaiters(event.jobId);
        if (acting()) void launcher.epilogSlurmctld(event.jobId);
        break;
      case "runTrigger":
        runTriggerProgram(event.trigger, event.arg, logger);
        break;
    }
  }

  /** After a restart: launches are idempotent on the agent, so re-send them for every running batch job. */
  function relaunchRunning(): void {
    for (const job of state.jobs.values()) {
      if (job.info.state !== "RUNNING" || !runsBatchScript(job.info)) continue;
      void deps.agents.launchBatch(job, state).catch(() => undefined);
    }
  }

  function notifyWaiters(jobId: number): void {
    const job = state.jobs.get(jobId);
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i];
      if (w === undefined || w.jobId !== jobId) continue;
      if (job === undefined || isJobFinished(job.info) || w.until.has(job.info.state)) {
        waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  function runSchedulerPass(): void {
    if (!acting()) return;
    // One start decision in flight at a time: the next pass must see its allocations.
    if (passInFlight) return;
    const now = deps.now();
    const startMs = performance.now();
    const cfg = state.config.sched;
    const result = schedule(state, now, cfg, { maxJobsExamined: cfg.maxJobsPerPass, clockMs: () => performance.now() });
    // A pass that leaves every reason, priority and plan as it was leaves the listing cache warm.
    if (!sameEntries(reasons, result.reasons) || !sameEntries(priorities, result.priorities) || !samePlan(planned, result.reservations)) viewsSeq++;
    reasons.clear();
    for (const [id, why] of result.reasons) reasons.set(id, why);
    priorities = result.priorities;
    priorityContext = result.priorityContext;
    planned = new Map(result.reservations.map((r) => [r.jobId, r]));
    recordPass(counters, result.stats, now, cfg.schedulerType === "sched/backfill");
    lastPassMs = performance.now() - startMs;
    const seconds = lastPassMs / 1000;
    if (result.expired.length > 0) executeInternal({ v: 1, type: "deadlineExpired", at: now, jobIds: result.expired });
    if (result.invalidDeps.length > 0) executeInternal({ v: 1, type: "dependencyNeverSatisfied", at: now, jobIds: result.invalidDeps });
    const preemption = planPreemption(state, result.reasons, result.priorities);
    if (preemption !== undefined) {
      logger.info({ message: "preempting", jobId: preemption.preemptorId, victims: preemption.victims.map((v) => v.jobId) });
      executeInternal({ v: 1, type: "preempt", at: now, ...preemption });
    }
    if (result.decisions.length === 0) {
      deps.onSchedulerPass?.({ seconds, started: 0 });
      return;
    }
    passInFlight = true;
    execute({ v: 1, type: "startJobs", at: now, decisions: result.decisions })
      .then((r) => deps.onSchedulerPass?.({ seconds, started: r.ids.length }))
      .catch((error) => {
        if (!diskFull.isFull()) logger.warn({ message: "start decisions not committed", error: String(error) });
      })
      .finally(() => {
        passInFlight = false;
      });
  }

  function kick(): void {
    if (kickTimer !== undefined) return;
    kickTimer = setTimeout(() => {
      kickTimer = undefined;
      try {
        runSchedulerPass();
      } catch (error) {
        logger.error({ message: "scheduler pass failed", error: String(error) });
      }
    }, Math.max(20, Math.min(5_000, lastPassMs)));
  }

  function enforceLimits(): void {
    if (!acting()) return;
    const now = deps.now();
    for (const command of dueCommands(state, now, (node) => heartbeats.get(node) ?? 0)) {
      if (command.type === "nodeFail") logger.warn({ message: "node not responding", node: command.node, silentSec: Math.round(now - (heartbeats.get(command.node) ?? 0)) });
      else if (command.type === "timeLimitReached") logger.info({ message: "time limit reached", jobId: command.jobId });
      else if (command.type === "signalBeforeEnd") logger.info({ message: "signal before end", jobId: command.jobId, signal: state.jobs.get(command.jobId)?.info.signal });
      executeInternal(command);
    }
    fireDueTriggers(now);
  }

  /** strigger: the leader records which triggers are due; their programs run when that is applied (runTrigger). */
  function fireDueTriggers(now: number): void {
    if (triggersInFlight || state.triggers.list.length === 0) return;
    const fired = dueTriggers(state.triggers, triggerView(state), now);
    if (fired.length === 0) return;
    triggersInFlight = true;
    execute({ v: 1, type: "triggersFired", at: now, fired })
      .catch((error) => logger.warn({ message: "trigger firing not committed", error: String(error) }))
      .finally(() => {
        triggersInFlight = false;
      });
  }

  return {
    state,
    execute,
    applyCommitted,
    leadershipChanged(serving) {
      if (serving && stopLoops !== undefined) beginLeading();
      viewsSeq++;
      if (!serving) reasons.clear();
    },
    reasonOf: (jobId) => reasons.get(jobId),
    priorityOf: (jobId) => {
      const value = priorities.get(jobId);
      const job = state.jobs.get(jobId);
      if (value === undefined || job === undefined) return undefined;
      // The factors from the pass's own inputs; the value exactly as the pass ordered by it.
      return { ...explainPriority(job, priorityContext), priority: value };
    },
    plannedStart: (jobId) => planned.get(jobId),
    viewsVersion: () => viewsSeq,
    plannedNodes: () => {
      const out = new Set<string>();
      for (const r of planned.values()) for (const n of r.nodes) out.add(n);
      return out;
    },
    schedCounters: () => counters,
    applyFailedTotal: () => applyFailed,
    noteSkippedEntries,
    kick,
    waitFor(jobId, until, timeoutMs) {
      return new Promise<void>((resolve) => {
        const w: Waiter = { jobId, until: new Set(until), resolve };
        waiters.push(w);
        notifyWaiters(jobId);
        setTimeout(() => {
          const i = waiters.indexOf(w);
          if (i >= 0) waiters.splice(i, 1);
          resolve();
        }, timeoutMs);
      });
    },
    heartbeat: (node) => heartbeats.set(node, deps.now()),
    lastHeartbeat: (node) => heartbeats.get(node),
    start() {
      // Agents get a full timeout after a controller restart before their nodes are failed.
      if (acting()) beginLeading();
      const sched = setInterval(() => kick(), deps.schedIntervalMs ?? 1000);
      const limits = setInterval(() => enforceLimits(), 1000);
      stopLoops = () => {
        clearInterval(sched);
        clearInterval(limits);
      };
      return () => {
        stopLoops?.();
        if (kickTimer !== undefined) clearTimeout(kickTimer);
      };
    },
  };
}

