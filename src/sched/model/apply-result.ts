/**
 * @module sched/model/apply-result
 * What applying one command returns: ids, per-item outcomes, a whole-command rejection in
 * Slurm's wording, and the side effects (events) the shell performs afterwards. A leaf of
 * its own so that every `apply-*.ts` can build results without importing `apply.ts`, which
 * imports them all (that was the import cycle of the whole sched layer).
 */
import type { TriggerRecord } from "./trigger-types.ts";
import type { JobRecord } from "./types.ts";
import type { SlurmErrorName } from "../../compat/slurm-errors.ts";

/** Side effects the shell performs after a command is applied (idempotent by design). */
export type ApplyEvent =
  | { type: "launchBatch"; jobId: number }
  | { type: "signalJob"; jobId: number; nodes: string[]; signal: number; reason: string; batchOnly: boolean; stepsOnly?: boolean; /** one step only (scancel J.S); signal 0 kills it */ stepId?: number }
  | { type: "jobStarted"; jobId: number }
  | { type: "jobFinished"; jobId: number }
  /** A trigger fired: run its program (as its owner, on the leader) with `arg` as the last argument. */
  | { type: "runTrigger"; trigger: TriggerRecord; arg: string };

export interface ItemResult {
  id: string;
  error: string;
  errorCode: number;
}

export interface ApplyResult {
  /** Job ids created (submit) or the step id created (stepCreate). */
  ids: number[];
  /** Per-item outcome for commands on several jobs; error "" = success. */
  items: ItemResult[];
  /** Whole-command rejection (e.g. an invalid submission), Slurm's wording. */
  error: string;
  /** Which rejection ("" = none): a name from compat/slurm-errors.ts, carrying Slurm's number to the clients. */
  errorCode: SlurmErrorName | "";
  events: ApplyEvent[];
  /** What the command's CLI prints on success (sacctmgr's change report). */
  text?: string;
  /**
   * purgeJobs: the records removed from the state, for the shell to archive on every replica
   * (ctld/job-archive.ts); the state no longer holds them.
   */
  purged?: JobRecord[];
}

export const emptyResult = (): ApplyResult => ({ ids: [], items: [], error: "", errorCode: "", events: [] });

export function rejected(code: SlurmErrorName, message: string): ApplyResult {
  return { ...emptyResult(), error: message, errorCode: code };
}

/** errorCode of a command that could not be applied at all (a bug, or a command from a newer version). */
export const APPLY_FAILED = "ApplyFailed" satisfies SlurmErrorName;
