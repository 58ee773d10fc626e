/**
 * @module sched/model/apply-cancel-step
 * `scancel J.S` and `scancel -s SIG J.S`: one step of a running job, not the job. A
 * cancel marks the step CANCELLED at once (sacct shows it so, signal 9, as Slurm's
 * step kill does) and asks the step's nodes to kill only that step's tasks; the job and
 * its batch script go on. A signal goes to that step's tasks only. Failures per id in
 * Slurm's words: no such job or step 2017, an ended job or step 2021.
 */
import type { Command } from "./commands.ts";
import type { ClusterState } from "./types.ts";
import { isJobFinished } from "./types.ts";
import type { ApplyEvent, ItemResult } from "./apply-result.ts";
import { canModify, JOB_ERRORS } from "./job-access.ts";
import { targetsForId } from "./select-jobs.ts";

type Cancel = Extract<Command, { type: "cancel" }>;

const STEP_ID = /^(\d+(?:_\d+)?)\.(\d+)$/;

/** "17.0" and "17_3.1" name a step; anything else is a job (or array) id. */
export const isStepIdText = (text: string): boolean => STEP_ID.test(text.trim());

/** Cancel or signal one step named by `text`; the item result and the agents' work. */
export function cancelStep(state: ClusterState, text: string, c: Cancel): { item: ItemResult; events: ApplyEvent[] } {
  const fail = (e: { code: number; text: string }) => ({ item: { id: text, error: e.text, errorCode: e.code }, events: [] });
  const m = STEP_ID.exec(text.trim());
  if (m === null) return fail(JOB_ERRORS.invalidJobId);
  const job = targetsForId(state, m[1] as string).find((t) => t.job !== undefined && t.pendingTasks.length === 0)?.job;
  if (job === undefined) return fail(JOB_ERRORS.invalidJobId);
  if (!canModify(job, c.by, state.config)) return fail(JOB_ERRORS.accessDenied);
  if (isJobFinished(job.info)) return fail(JOB_ERRORS.alreadyDone);
  const stepId = Number(m[2]);
  const step = job.info.steps.find((s) => s.stepId === stepId);
  if (step === undefined) return fail(JOB_ERRORS.invalidJobId);
  if (step.state !== "RUNNING") return fail(JOB_ERRORS.alreadyDone);
  const nodes = step.alloc.map((a) => a.node);
  if (c.signal === 0) Object.assign(step, { state: "CANCELLED", exitCode: 0, exitSignal: 9, endTime: c.at });
  const event: ApplyEvent = { type: "signalJob", jobId: job.info.jobId, nodes, signal: c.signal, reason: "", batchOnly: false, stepId };
  return { item: { id: text, error: "", errorCode: 0 }, events: [event] };
}
