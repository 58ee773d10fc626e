/**
 * @module compat/options/row-types
 * Shapes of the three option fact tables (table-sbatch.ts, table-srun.ts, table-salloc.ts).
 * Every TSV column is kept verbatim as a string so a test can compare the committed data
 * with /work/shared/slurm-surface/*-options.tsv; `spur` is Spur's own column.
 */

/**
 * How Spur treats an option or input variable:
 * - ok: implemented (mapped onto the JobSpec or onto the command's behaviour);
 * - warn: accepted, ignored, and the user gets `<cmd>: warning: ... not supported by Spur`;
 * - error: rejected with `<cmd>: error: ... not supported by Spur` (ignoring it would change
 *   what the job does or who it runs as);
 * - ignore: environment-only inputs that Slurm itself reads and then drops (SBATCH_POWER,
 *   SLURM_IMMEDIATE) or that only tune Slurm's own client (SLURM_CONF, SLURM_DEBUG_FLAGS).
 */
export type Support = "ok" | "warn" | "error" | "ignore";

/** A row of sbatch-options.tsv: every option sbatch accepts (shared rows feed srun/salloc). */
export interface SbatchRow {
  /** "--account", or "(env only: ...)" for environment-only inputs. */
  long: string;
  /** "-A" or "". */
  short: string;
  /** none | required | optional | (env). */
  hasArg: string;
  argKind: string;
  syntax: string;
  /** Other commands that accept the option: "salloc,scrontab,srun". */
  validFor: string;
  /** Comma-separated input variables; when several are set the later one wins. */
  sbatchEnv: string;
  sallocEnv: string;
  srunEnv: string;
  outputEnv: string;
  inMan: string;
  description: string;
  spur: Support;
}

/** A row of srun-options.tsv (category: srun-only, srun+salloc only, differs-from-sbatch, env-input). */
export interface SrunRow {
  long: string;
  short: string;
  hasArg: string;
  argKind: string;
  syntax: string;
  validFor: string;
  category: string;
  srunEnv: string;
  taskOutputEnv: string;
  inMan: string;
  description: string;
  spur: Support;
}

/** A row of salloc-options.tsv. */
export interface SallocRow {
  long: string;
  short: string;
  hasArg: string;
  argKind: string;
  syntax: string;
  validFor: string;
  sallocEnv: string;
  description: string;
  spur: Support;
}
