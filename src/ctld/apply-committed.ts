/**
 * @module ctld/apply-committed
 * Applying a durable command on this controller (every replica, in log order): the one pure
 * apply(), then its events acted on (by the acting controller; every replica counts), then a
 * scheduling pass asked for when the command may start something. Failure policy: apply() is
 * total; a command it could not apply (APPLY_FAILED, the same on every replica) is skipped,
 * logged once with its log index, and counted.
 */
import type { ConsolaInstance } from "consola/core";
import { APPLY_FAILED, apply, type ApplyEvent, type ApplyResult } from "../sched/model/apply.ts";
import type { Command } from "../sched/model/commands.ts";
import type { ClusterState } from "../sched/model/types.ts";
import type { SchedCounters } from "./sched-stats.ts";
import type { JobArchive } from "./job-archive.ts";

export interface ApplyDeps {
  state: ClusterState;
  logger: Pick<ConsolaInstance, "error">;
  counters: SchedCounters;
  acting(): boolean;
  handleEvent(event: ApplyEvent): void;
  kick(): void;
  /** The views may have changed (every applied command). */
  viewsChanged(): void;
  /** Where the records of purged jobs go (every replica). */
  archive: JobArchive | undefined;
}

export interface CommittedApplier {
  applyCommitted(command: Command, index?: number): ApplyResult;
  /** Entries skipped outside applyCommitted (start-up replay, the Raft driver): counted like ApplyFailed. */
  noteSkippedEntries(count: number): void;
  applyFailedTotal(): number;
}

export function createCommittedApplier(d: ApplyDeps): CommittedApplier {
  const { state, logger, counters } = d;
  let applyFailed = 0;

  function applyCommitted(command: Command, index?: number): ApplyResult {
    d.viewsChanged();
    const result = apply(state, command);
    noteFailure(command, result, index);
    if (result.purged !== undefined) archivePurged(d, result.purged, index ?? state.appliedIndex);
    if (command.type === "submit") counters.jobsSubmitted += result.ids.length;
    for (const event of result.events) {
      if (d.acting() || event.type === "jobStarted" || event.type === "jobFinished") d.handleEvent(event);
    }
    if (d.acting() && (command.type !== "startJobs" || result.ids.length > 0) && command.type !== "purgeJobs" && !submittedHeldOnly(command, result)) d.kick();
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

  /**
   * The records apply() just dropped go to the archive at once, in this turn: before anything
   * else runs, so before any snapshot of the state without them is taken. A write that fails
   * leaves them out of this replica's archive (logged; the purge stands on every replica).
   */
  function archivePurged(deps: ApplyDeps, jobs: NonNullable<ApplyResult["purged"]>, at: number): void {
    try {
      deps.archive?.put(jobs);
    } catch (error) {
      logger.error({ message: "purged jobs not archived: sacct will not show them on this replica", index: at, jobs: jobs.length, error: String(error) });
    }
  }

  function noteSkippedEntries(count: number): void {
    counters.applyFailures += count;
    applyFailed += count;
  }

  return { applyCommitted, noteSkippedEntries, applyFailedTotal: () => applyFailed };
}
