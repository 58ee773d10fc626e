/**
 * @module compat/srun-interrupt
 * What srun does on Ctrl-C (SIGINT), as Slurm 22.05's srun does on the oracle
 * (tests/fixtures/srun/interrupt-oracle.txt): a first Ctrl-C only reports the step's tasks
 * ("interrupt (one more within 1 sec to abort)", "StepId=J.S tasks 0-1: running"); a second
 * within one second sends Ctrl-C to the step and aborts it, waiting KillWait + 2 seconds.
 * Pure: the caller passes the times and prints the lines.
 */

/** Most time between two Ctrl-C that abort the step. */
export const INTERRUPT_WINDOW_MS = 1000;

export interface InterruptStep {
  jobId: number;
  stepId: number;
  ntasks: number;
  /** The job's KillWait (Slurm waits it plus two seconds for the step to end). */
  killWaitSec: number;
  /** srun made the allocation itself (it then ends the job too). */
  ownAllocation: boolean;
}

export interface InterruptOutcome {
  abort: boolean;
  lines: string[];
}

/** `previousMs`: when the last Ctrl-C came (undefined: none yet); `step` undefined while it is being created. */
export function onInterrupt(previousMs: number | undefined, nowMs: number, step: InterruptStep | undefined): InterruptOutcome {
  const second = previousMs !== undefined && nowMs - previousMs <= INTERRUPT_WINDOW_MS;
  const id = step === undefined ? "" : `StepId=${step.jobId}.${step.stepId}`;
  if (!second) {
    const lines = ["srun: interrupt (one more within 1 sec to abort)"];
    if (step !== undefined) lines.push(`srun: ${id} ${taskRange(step.ntasks)}: running`);
    return { abort: false, lines };
  }
  if (step === undefined) return { abort: true, lines: ["srun: Job step aborted"] };
  const lines = [`srun: sending Ctrl-C to ${id}`];
  if (step.ownAllocation) lines.push("srun: forcing job termination");
  lines.push(`srun: Job step aborted: Waiting up to ${step.killWaitSec + 2} seconds for job step to finish.`);
  return { abort: true, lines };
}

/** "task 0" or "tasks 0-3", as srun names a step's tasks. */
function taskRange(ntasks: number): string {
  return ntasks <= 1 ? "task 0" : `tasks 0-${ntasks - 1}`;
}
