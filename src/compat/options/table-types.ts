/**
 * @module compat/options/table-types
 * The shapes of a command's option table (table.ts), in a leaf of their own so that the
 * build-time derivation (table-built.ts) and table.ts share them without a cycle.
 */
import type { Support } from "./row-types.ts";

export type Command = "sbatch" | "srun" | "salloc";
export type HasArg = "none" | "required" | "optional";

/** One option as one command sees it. */
export interface OptionDef {
  /** Long name without the dashes: "cpus-per-task". */
  name: string;
  /** Short letter without the dash, or "". */
  short: string;
  hasArg: HasArg;
  argKind: string;
  syntax: string;
  description: string;
  /** Listed in the man page (shown by --help/--usage). */
  documented: boolean;
  /** Input variables for this command, in order: a later one overrides an earlier one. */
  envVars: readonly string[];
  outputEnv: string;
  support: Support;
  /** getopt identity: spellings of one option share it (e.g. --tasks-per-node). */
  key: string;
}

/** An input variable and the option (or env-only setting) it feeds. */
export interface EnvInput {
  envVar: string;
  /** Option name, or an env-only setting: umask, exit-error, exit-immediate, alloc-nodelist, switches. */
  target: string;
  hasArg: HasArg;
  support: Support;
}

/** The plain part of a command's table (what the build inlines): its options and input variables. */
export interface PlainTable {
  options: OptionDef[];
  env: EnvInput[];
}

