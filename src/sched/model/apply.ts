/**
 * @module sched/model/apply
 * The ONE mutation point of controller state: apply(state, command) changes the
 * state and returns what happened (results for the caller, events for the shell
 * to act on: launch a script, signal a job). Deterministic: same state + same
 * command = same outcome on every replica and on every replay of the log.
 * Invalid commands change nothing and report an error; they never throw.
 */
import type { Command } from "./commands.ts";
import type { ClusterState } from "./types.ts";
import { applySubmit } from "./apply-submit.ts";
import { applyStartJobs, applyJobEnded, applyLaunchFailed, applyTimeLimit, applyDeadlineExpired, applyDependencyNeverSatisfied } from "./apply-run.ts";
import { applyCancel, applyUpdateJob } from "./apply-update.ts";
import { applyRegisterNode, applyUpdateNode, applyNodeFail } from "./apply-node.ts";
import { applyStepCreate, applyStepComplete } from "./apply-step.ts";
import { applyStepUsage } from "./apply-usage.ts";
import { assert } from "../../lib/assert.ts";
import { applyAcctCommand } from "../acct/apply-acct-command.ts";
import { applyPreempt, resumeSuspended } from "./apply-preempt.ts";
import { applyReservation } from "../resv/apply-resv.ts";
import { applySignalBeforeEnd } from "./apply-signal.ts";

/** Side effects the shell performs after a command is applied (idempotent by design). */
export type ApplyEvent =
  | { type: "launchBatch"; jobId: number }
  | { type: "signalJob"; jobId: number; nodes: string[]; signal: number; reason: string; batchOnly: boolean; stepsOnly?: boolean; /** one step only (scancel J.S); signal 0 kills it */ stepId?: number }
  | { type: "jobStarted"; jobId: number }
  | { type: "jobFinished"; jobId: number };

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
  errorCode: string;
  events: ApplyEvent[];
  /** What the command's CLI prints on success (sacctmgr's change report). */
  text?: string;
}

export const emptyResult = (): ApplyResult => ({ ids: [], items: [], error: "", errorCode: "", events: [] });

export function rejected(code: string, message: string): ApplyResult {
  return { ...emptyResult(), error: message, errorCode: code };
}

export function apply(state: ClusterState, command: Command): ApplyResult {
  assert(command.v === 1, `known command version (got ${command.v})`);
  const before = state.nextJobId;
  const result = dispatch(state, command);
  // A job end may free the CPUs/GPUs a suspended (PreemptMode=SUSPEND) job waits for.
  if (result.events.some((e) => e.type === "jobFinished")) result.events.push(...resumeSuspended(state, command.at));
  assert(state.nextJobId >= before, "job ids never go backwards");
  state.appliedIndex += 1;
  return result;
}

function dispatch(state: ClusterState, c: Command): ApplyResult {
  switch (c.type) {
    case "submit":
      return applySubmit(state, c);
    case "startJobs":
      return applyStartJobs(state, c);
    case "jobEnded":
      return applyJobEnded(state, c);
    case "launchFailed":
      return applyLaunchFailed(state, c);
    case "timeLimitReached":
      return applyTimeLimit(state, c);
    case "signalBeforeEnd":
      return applySignalBeforeEnd(state, c);
    case "deadlineExpired":
      return applyDeadlineExpired(state, c);
    case "dependencyNeverSatisfied":
      return applyDependencyNeverSatisfied(state, c);
    case "cancel":
      return applyCancel(state, c);
    case "updateJob":
      return applyUpdateJob(state, c);
    case "registerNode":
      return applyRegisterNode(state, c);
    case "updateNode":
      return applyUpdateNode(state, c);
    case "nodeFail":
      return applyNodeFail(state, c);
    case "stepCreate":
      return applyStepCreate(state, c);
    case "stepComplete":
      return applyStepComplete(state, c);
    case "stepUsage":
      return applyStepUsage(state, c);
    case "acct":
      return applyAcctCommand(state, c);
    case "preempt":
      return applyPreempt(state, c);
    case "reservation":
      return applyReservation(state, c);
  }
}
