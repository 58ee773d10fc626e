/**
 * @module compat/srun-step-wait
 * What srun prints while a step waits for CPUs that other steps of its job hold (Slurm 22.05
 * on the oracle, `srun --exclusive` beside a running step): nothing while it waits; when its
 * first wait ends (Slurm's controller wakes it once resources are released, or after a wait
 * period) "Job J step creation temporarily disabled, retrying (Requested nodes are busy)";
 * each later wait that ends without a step "step creation still disabled" under -v only; then
 * "Step created for job J". `--immediate` does not wait (the refusal is final); Ctrl-C while it
 * waits ends srun with "Cancelled pending job step with signal 2" and the step's refusal. -Q
 * hides the info lines. Pure: the shell (roles/cli/step-wait.ts) keeps time and prints.
 */

/** Slurm's answer to a step whose CPUs other steps of the job hold now: srun waits and asks again. */
export const STEP_NODES_BUSY = "Requested nodes are busy";

/** How long one wait lasts before srun says so (Slurm's srun waits 60 to 70 s for a wake-up). */
export const STEP_WAIT_PERIOD_MS = 60_000;

/** How often Spur's srun asks again while it waits (Spur's controller sends no wake-up). */
export const STEP_RETRY_MS = 500;

export interface StepWaitView {
  jobId: number;
  reason: string;
  quiet: boolean;
  verbose: number;
}

/** Lines when wait number `waitIndex` (0 = the first) ends: with a step (`created`) or without. */
export function waitEndedLines(v: StepWaitView, waitIndex: number, created: boolean): string[] {
  const lines: string[] = [];
  if (waitIndex === 0 && !v.quiet) lines.push(`srun: Job ${v.jobId} step creation temporarily disabled, retrying (${v.reason})`);
  else if (waitIndex > 0 && !created && v.verbose > 0) lines.push(`srun: Job ${v.jobId} step creation still disabled, retrying (${v.reason})`);
  if (created && !v.quiet) lines.push(`srun: Step created for job ${v.jobId}`);
  return lines;
}

/** Ctrl-C (or another signal) while the step waits: srun gives up with these lines and exit code 1. */
export function cancelledWaitLines(jobId: number, signal: number): string[] {
  return [`srun: Cancelled pending job step with signal ${signal}`, `srun: error: Unable to create step for job ${jobId}: Job/step already completing or completed`];
}
