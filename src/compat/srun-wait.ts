/**
 * @module compat/srun-wait
 * srun -W/--wait=SEC: once the first task of a step has exited, the others get SEC seconds; then
 * srun reports where every task stands and kills the step. The lines, from the Slurm 22.05 oracle
 * (`srun -W 2 -N2 -n2`, task 0 exiting at once): "First task exited 2s ago", one line per state
 * (`StepId=J.S task 1: running`, `... task 0: exited` or `exited abnormally` for a non-zero
 * status), "_step_signal: Terminating", "Job step aborted: Waiting up to KillWait+2 seconds";
 * the tasks are killed (SIGKILL: "Killed", srun exits 137). Pure.
 */

export type TaskState = "running" | "exited" | "abnormal";

/** "task 3" or "tasks 0-2,5": ranks as srun names a set of them. */
export function taskSetText(ranks: readonly number[]): string {
  const sorted = [...ranks].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return `${sorted.length === 1 ? "task" : "tasks"} ${parts.join(",")}`;
}

/** srun's lines when the --wait time after the first exit has run out (`states`: every task's). */
export function waitExpiredLines(waitSec: number, stepId: string, states: ReadonlyMap<number, TaskState>, killWaitSec: number): string[] {
  const lines = [`srun: First task exited ${waitSec}s ago`];
  const words: Record<TaskState, string> = { running: "running", exited: "exited", abnormal: "exited abnormally" };
  for (const state of ["running", "exited", "abnormal"] as const) {
    const ranks = [...states].filter(([, s]) => s === state).map(([r]) => r);
    if (ranks.length > 0) lines.push(`srun: StepId=${stepId} ${taskSetText(ranks)}: ${words[state]}`);
  }
  lines.push(`srun: launch/slurm: _step_signal: Terminating StepId=${stepId}`);
  lines.push(`srun: Job step aborted: Waiting up to ${killWaitSec + 2} seconds for job step to finish.`);
  return lines;
}
