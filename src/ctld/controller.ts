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
 *
 * Timers come from deps.clock (lib/clock.ts; the system clock by default). The pieces:
 * group-commit (durability), sched-loop (the debounced scheduling pass), due-loop (the one
 * timer-driven loop for time limits, signals, silent nodes, triggers); this file applies
 * commands and acts on their events.
 */
import { assert } from "../lib/assert.ts";
import type { TimerHandle } from "../lib/clock.ts";
import { systemClock } from "../lib/system-clock.ts";
import { isJobFinished } from "../sched/model/types.ts";
import { createCommittedApplier } from "./apply-committed.ts";
import type { Controller, ControllerDeps, NodeLoad } from "./controller-api.ts";
import { scriptsInForce } from "./ctld-scripts.ts";
import { createDueLoop } from "./due-loop.ts";
import { createEventActions } from "./event-actions.ts";
import { createCommitter } from "./group-commit.ts";
import { startIdleGc } from "./idle-gc.ts";
import { createJobLauncher } from "./job-launch.ts";
import { createSchedLoop } from "./sched-loop.ts";
import { newSchedCounters } from "./sched-stats.ts";

export type { Controller, ControllerDeps, Replication } from "./controller-api.ts";

interface Waiter {
  jobId: number;
  until: Set<string>;
  resolve: () => void;
}

/** Waiters for a job's state (srun, salloc, sbatch --wait): answered on a state change, or at their timeout. */
function createWaiters(deps: ControllerDeps, clock: NonNullable<ControllerDeps["clock"]>) {
  const waiters: Waiter[] = [];
  const notify = (jobId: number): void => {
    const job = deps.state.jobs.get(jobId);
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i];
      if (w === undefined || w.jobId !== jobId) continue;
      if (job === undefined || isJobFinished(job.info) || w.until.has(job.info.state)) {
        waiters.splice(i, 1);
        w.resolve();
      }
    }
  };
  const waitFor = (jobId: number, until: string[], timeoutMs: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const w: Waiter = { jobId, until: new Set(until), resolve };
      waiters.push(w);
      notify(jobId);
      clock.setTimeout(() => {
        const i = waiters.indexOf(w);
        if (i >= 0) waiters.splice(i, 1);
        resolve();
      }, timeoutMs);
    });
  return { notify, waitFor };
}

export function createController(deps: ControllerDeps): Controller {
  const { state, logger } = deps;
  assert((deps.log === undefined) !== (deps.replication === undefined), "exactly one of log / replication");
  const clock = deps.clock ?? systemClock;
  const counters = newSchedCounters(deps.now());
  let viewsSeq = 0;
  let stopLoops: (() => void) | undefined;
  const acting = (): boolean => deps.replication === undefined || deps.replication.isServing();
  const waiters = createWaiters(deps, clock);
  const committer = createCommitter({ state, log: deps.log, replication: deps.replication, clock, logger, applyCommitted: (c, i) => applyCommitted(c, i) });
  const { execute, executeInternal } = committer;
  const sched = createSchedLoop({
    state, clock, now: deps.now, logger, counters, acting, execute, executeInternal,
    diskFull: () => committer.diskFull.isFull(),
    viewsChanged: () => viewsSeq++,
    onSchedulerPass: deps.onSchedulerPass,
  });
  const due = createDueLoop({ state, clock, now: deps.now, logger, acting, execute, executeInternal, purges: deps.archive !== undefined });
  /** What each agent last said of its host's load (heartbeats): volatile, in memory, never replicated. */
  const loads = new Map<string, NodeLoad>();
  const launcher = createJobLauncher({
    state, agents: deps.agents, logger, now: deps.now, acting, executeInternal,
    scripts: () => scriptsInForce(state.reconfigured, deps.scripts),
    runScript: deps.runScript ?? (async () => ({ ok: false, why: "no script runner" })),
  });
  const events = createEventActions({ state, agents: deps.agents, logger, counters, launcher, acting, notify: waiters.notify });
  const { applyCommitted, noteSkippedEntries, applyFailedTotal } = createCommittedApplier({
    state, logger, counters, acting, handleEvent: events.handle, kick: () => sched.kick(), viewsChanged: () => viewsSeq++, archive: deps.archive,
  });

  /** Leader duties begin: agents get a full timeout, running jobs are (idempotently) re-launched. */
  function beginLeading(): void {
    due.resetHeard();
    events.relaunchRunning();
    sched.kick();
  }

  return {
    state,
    archive: deps.archive,
    execute,
    applyCommitted,
    leadershipChanged(serving) {
      if (serving && stopLoops !== undefined) beginLeading();
      viewsSeq++;
      if (!serving) sched.clearReasons();
    },
    reasonOf: sched.reasonOf,
    priorityOf: sched.priorityOf,
    plannedStart: sched.plannedStart,
    viewsVersion: () => viewsSeq,
    plannedNodes: sched.plannedNodes,
    schedCounters: () => counters,
    applyFailedTotal,
    noteSkippedEntries,
    kick: sched.kick,
    waitFor: waiters.waitFor,
    heartbeat(node, load) {
      due.heard(node);
      if (load !== undefined) loads.set(node, load);
    },
    lastHeartbeat: due.lastHeard,
    nodeLoad: (node) => loads.get(node),
    start() {
      // Agents get a full timeout after a controller restart before their nodes are failed.
      if (acting()) beginLeading();
      const kicker: TimerHandle = clock.setInterval(() => sched.kick(), deps.schedIntervalMs ?? 1000);
      due.start();
      const collect = deps.collectGarbage;
      const stopGc = collect === undefined ? undefined : startIdleGc({ clock, appliedIndex: () => state.appliedIndex, collect });
      stopLoops = () => {
        clock.clear(kicker);
        due.stop();
        stopGc?.();
      };
      return () => {
        stopLoops?.();
        sched.stop();
      };
    },
  };
}
