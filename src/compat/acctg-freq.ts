/**
 * @module compat/acctg-freq
 * The task sampling interval in --acctg-freq and JobAcctGatherFrequency ("task=N" or a bare N,
 * among energy=/network=/filesystem= items). Slurm 22.05's controller refuses a job with a
 * memory limit whose task interval is 0 or longer than the configured one ("Invalid accounting
 * frequency requested"; oracle: task=10 and task=30 pass at the default 30, task=31, task=60,
 * 60, 0 and task=0 are refused, any of them passes with --mem=0). Pure.
 */

/** The task sampling interval a --acctg-freq or JobAcctGatherFrequency value names (a bare N is task=N); undefined when it names none. */
export function acctgTaskSec(text: string): number | undefined {
  let sec: number | undefined;
  for (const item of text.split(",")) {
    const m = /^(?:task=)?([0-9]+)$/.exec(item);
    if (m !== null) sec = Number(m[1]);
  }
  return sec;
}

/** Slurm's JobAcctGatherFrequency default: task=30. */
export const DEFAULT_ACCT_TASK_SEC = 30;

/** Whether a job with a memory limit may ask this task interval (undefined: none asked). */
export const acctTaskAllowed = (asked: number | undefined, configured: number): boolean =>
  asked === undefined || configured === 0 || (asked > 0 && asked <= configured);
