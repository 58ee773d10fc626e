/**
 * @module result
 * Expected failures are values, not exceptions: `Result<T>` carries either the
 * value or a SpurError whose message is already in Slurm's wording.
 */

export interface SpurError {
  /** Stable machine code, e.g. "InvalidPartition", "BadTimeLimit". */
  code: string;
  /** Text printed to the user, without the "sbatch: error: " prefix. */
  message: string;
  /** Exit code the CLI should use (Slurm's), default 1. */
  exitCode?: number;
  /** Warnings the command had met before this failure, printed ahead of it as on success (sbatch). */
  warningsBefore?: readonly string[];
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: SpurError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });

export const err = (code: string, message: string, exitCode?: number): Result<never> => ({
  ok: false,
  error: exitCode === undefined ? { code, message } : { code, message, exitCode },
});
