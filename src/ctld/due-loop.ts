/**
 * @module ctld/due-loop
 * The controller's one timer-driven loop for what time alone makes due: every DUE_PERIOD_MS
 * on the injected clock the acting controller asks the pure sched/model/due.ts which jobs are
 * past their limit, which --signal warnings and which silent nodes are due, and commits them;
 * then the strigger programs due (sched/model/triggers.ts); every few turns, the finished jobs
 * past MinJobAge to purge (sched/model/apply-purge.ts). apply() re-checks every command,
 * so one committed late or twice is harmless. Also keeps when each agent was last heard.
 * Failure policy: a command not committed is logged (by executeInternal) and found due again
 * on the next turn.
 */
import type { ConsolaInstance } from "consola/core";
import type { Clock, TimerHandle } from "../lib/clock.ts";
import type { ApplyResult } from "../sched/model/apply.ts";
import type { Command } from "../sched/model/commands.ts";
import { dueCommands } from "../sched/model/due.ts";
import { dueTriggers } from "../sched/model/triggers.ts";
import { purgeCandidates } from "../sched/model/apply-purge.ts";
import type { ClusterState } from "../sched/model/types.ts";
import { triggerView } from "./trigger-run.ts";
import { jobPhases } from "./job-phases.ts";

/** How often time limits, signals, silent nodes and triggers are checked. */
export const DUE_PERIOD_MS = 1000;
/** Finished jobs past MinJobAge are looked for every this many turns (a walk over the finished jobs). */
export const PURGE_EVERY_TURNS = 5;

export interface DueLoopDeps {
  state: ClusterState;
  clock: Clock;
  /** The state's time, epoch seconds. */
  now(): number;
  logger: Pick<ConsolaInstance, "info" | "warn">;
  acting(): boolean;
  execute(command: Command): Promise<ApplyResult>;
  executeInternal(command: Command): void;
  /** Whether finished jobs are purged after MinJobAge (the controller has an archive for them). */
  purges: boolean;
}

export interface DueLoop {
  /** One turn (start() runs it every DUE_PERIOD_MS). */
  turn(): void;
  start(): void;
  stop(): void;
  /** Agent `node` was heard from now. */
  heard(node: string): void;
  lastHeard(node: string): number | undefined;
  /** Leader duties begin: every known agent gets a full SlurmdTimeout from now. */
  resetHeard(): void;
}

export function createDueLoop(d: DueLoopDeps): DueLoop {
  const { state, logger } = d;
  const heartbeats = new Map<string, number>();
  let triggersInFlight = false;
  let purgeInFlight = false;
  let turns = 0;
  let timer: TimerHandle | undefined;

  /** Finished jobs past MinJobAge leave the state (apply-purge.ts re-checks each at the command's `at`). */
  function purgeOldJobs(now: number): void {
    if (!d.purges || purgeInFlight || turns % PURGE_EVERY_TURNS !== 0) return;
    const jobIds = purgeCandidates(state, now, undefined, jobPhases(state).finished);
    if (jobIds.length === 0) return;
    purgeInFlight = true;
    d.execute({ v: 1, type: "purgeJobs", at: now, jobIds })
      .catch((error) => logger.warn({ message: "job purge not committed", error: String(error) }))
      .finally(() => {
        purgeInFlight = false;
      });
  }

  /** strigger: the leader records which triggers are due; their programs run when that is applied (runTrigger). */
  function fireDueTriggers(now: number): void {
    if (triggersInFlight || state.triggers.list.length === 0) return;
    const fired = dueTriggers(state.triggers, triggerView(state), now);
    if (fired.length === 0) return;
    triggersInFlight = true;
    d.execute({ v: 1, type: "triggersFired", at: now, fired })
      .catch((error) => logger.warn({ message: "trigger firing not committed", error: String(error) }))
      .finally(() => {
        triggersInFlight = false;
      });
  }

  function turn(): void {
    if (!d.acting()) return;
    const now = d.now();
    for (const command of dueCommands(state, now, (node) => heartbeats.get(node) ?? 0, jobPhases(state).active)) {
      if (command.type === "nodeFail") logger.warn({ message: "node not responding", node: command.node, silentSec: Math.round(now - (heartbeats.get(command.node) ?? 0)) });
      else if (command.type === "timeLimitReached") logger.info({ message: "time limit reached", jobId: command.jobId });
      else if (command.type === "signalBeforeEnd") logger.info({ message: "signal before end", jobId: command.jobId, signal: state.jobs.get(command.jobId)?.info.signal });
      d.executeInternal(command);
    }
    fireDueTriggers(now);
    purgeOldJobs(now);
    turns++;
  }

  return {
    turn,
    start() {
      timer ??= d.clock.setInterval(turn, DUE_PERIOD_MS);
    },
    stop() {
      d.clock.clear(timer);
      timer = undefined;
    },
    heard: (node) => heartbeats.set(node, d.now()),
    lastHeard: (node) => heartbeats.get(node),
    resetHeard() {
      const now = d.now();
      for (const node of state.nodes.values()) if (node.info.state !== "UNKNOWN") heartbeats.set(node.info.name, now);
    },
  };
}
