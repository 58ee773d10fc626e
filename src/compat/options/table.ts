/**
 * @module compat/options/table
 * The ONE option table per command (sbatch, srun, salloc), derived from the three fact
 * tables. Command-line parsing, #SBATCH directives, SBATCH_/SALLOC_/SLURM_ input variables
 * and --help/--usage all read it; nothing else lists options.
 *
 * Options Spur does not implement carry support "warn" (accepted with a warning) or
 * "error" (rejected) in their rows of table-sbatch/srun/salloc.ts; the rows are the only
 * list (a copy here went stale as options were implemented). `spur check` reports them.
 */
import { SALLOC_ROWS } from "./table-salloc.ts";
import { SBATCH_ROWS } from "./table-sbatch.ts";
import { CONTAINER_ROWS } from "./table-container.ts";
import { SRUN_ROWS } from "./table-srun.ts";
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

/** Spellings that getopt treats as the same option (same `val` in Slurm's table). */
const KEY_ALIASES: Record<string, string> = {
  "tasks-per-node": "ntasks-per-node",
  cpu_bind: "cpu-bind",
  "pack-group": "het-group",
};

/** The option a spelling stands for (Slurm names it in its messages: --tasks-per-node=abc → "--ntasks-per-node"). */
export const canonicalName = (name: string): string => KEY_ALIASES[name] ?? name;

/** Where each environment-only input goes (rows whose long column is "(env only...)"). */
const ENV_ONLY_TARGETS: Record<string, string> = {
  SLURM_UMASK: "umask",
  SLURM_EXIT_ERROR: "exit-error",
  SLURM_EXIT_IMMEDIATE: "exit-immediate",
  SLURM_JOB_NODELIST: "alloc-nodelist",
  SLURM_STDERRMODE: "error",
  SLURM_STDINMODE: "input",
  SLURM_STDOUTMODE: "output",
  SLURM_REMOTE_CWD: "chdir",
  SLURM_NPROCS: "ntasks",
  SLURM_JOB_NUM_NODES: "nodes",
  SLURM_JOB_ID: "jobid",
  SALLOC_DEBUG: "verbose",
};

interface Raw {
  long: string;
  short: string;
  hasArg: string;
  argKind: string;
  syntax: string;
  description: string;
  inMan: string;
  spur: Support;
  outputEnv: string;
  env: string;
}

const splitList = (s: string): string[] => (s === "" ? [] : s.split(","));

function toDef(r: Raw): OptionDef {
  const name = r.long.slice(2);
  return {
    name,
    short: r.short.replace(/^-/, ""),
    hasArg: r.hasArg as HasArg,
    argKind: r.argKind,
    syntax: r.syntax,
    description: r.description,
    documented: r.inMan.startsWith("yes"),
    envVars: splitList(r.env),
    outputEnv: r.outputEnv,
    support: r.spur,
    key: KEY_ALIASES[name] ?? name,
  };
}

const isOption = (r: { long: string }): boolean => r.long.startsWith("--");
const acceptedBy = (validFor: string, cmd: string): boolean => splitList(validFor).includes(cmd);

function sbatchRaw(cmd: Command): Raw[] {
  // pyxis's container options (a SPANK plugin in Slurm) follow Slurm's own rows.
  const rows = [...SBATCH_ROWS, ...CONTAINER_ROWS].filter((r) => cmd === "sbatch" || acceptedBy(r.validFor, cmd));
  return rows.map((r) => ({
    ...r,
    env: cmd === "sbatch" ? r.sbatchEnv : cmd === "srun" ? r.srunEnv : r.sallocEnv,
  }));
}

function srunRaw(): Raw[] {
  return SRUN_ROWS.map((r) => ({ ...r, outputEnv: r.taskOutputEnv, env: r.srunEnv }));
}

function sallocRaw(): Raw[] {
  return SALLOC_ROWS.map((r) => ({ ...r, inMan: "yes", outputEnv: "", env: r.sallocEnv }));
}

/** Shared rows first (table order), replaced in place by a command's own row of the same name. */
function mergeRows(shared: Raw[], own: Raw[]): Raw[] {
  const ownByLong = new Map(own.filter(isOption).map((r) => [r.long, r]));
  const merged = shared.map((r) => (isOption(r) ? (ownByLong.get(r.long) ?? r) : r));
  const seen = new Set(merged.map((r) => r.long));
  return [...merged, ...own.filter((r) => !isOption(r) || !seen.has(r.long))];
}

function rawFor(cmd: Command): Raw[] {
  if (cmd === "sbatch") return sbatchRaw(cmd);
  if (cmd === "srun") return mergeRows(sbatchRaw(cmd), srunRaw());
  return mergeRows(sbatchRaw(cmd), sallocRaw());
}

interface CommandTable {
  options: readonly OptionDef[];
  byName: ReadonlyMap<string, OptionDef>;
  byShort: ReadonlyMap<string, OptionDef>;
  env: readonly EnvInput[];
}

function envInputs(raw: Raw[], options: readonly OptionDef[]): EnvInput[] {
  const inputs: EnvInput[] = [];
  const seen = new Set<string>();
  const add = (input: EnvInput): void => {
    if (seen.has(input.envVar)) return;
    seen.add(input.envVar);
    inputs.push(input);
  };
  for (const def of options) {
    for (const envVar of def.envVars) add({ envVar, target: def.name, hasArg: def.hasArg, support: def.support });
  }
  for (const r of raw.filter((row) => !isOption(row))) {
    for (const envVar of splitList(r.env)) {
      const target = ENV_ONLY_TARGETS[envVar] ?? (envVar.endsWith("SWITCH") ? "switches" : "");
      const targetDef = options.find((d) => d.name === target);
      add({ envVar, target, hasArg: targetDef?.hasArg ?? "required", support: r.spur });
    }
  }
  return inputs;
}

function buildTable(cmd: Command): CommandTable {
  const raw = rawFor(cmd);
  const options = raw.filter(isOption).map(toDef);
  const byShort = new Map<string, OptionDef>();
  for (const d of options) if (d.short !== "" && !byShort.has(d.short)) byShort.set(d.short, d);
  return { options, byName: new Map(options.map((d) => [d.name, d])), byShort, env: envInputs(raw, options) };
}

const cache = new Map<Command, CommandTable>();

/** The option table of one command (built once from the data files, then cached). */
export function tableFor(cmd: Command): CommandTable {
  let t = cache.get(cmd);
  if (t === undefined) {
    t = buildTable(cmd);
    cache.set(cmd, t);
  }
  return t;
}

/** All options of a command in table order. */
export const optionsFor = (cmd: Command): readonly OptionDef[] => tableFor(cmd).options;

/** Input variables a command reads, with the option each one sets. */
export const envInputsFor = (cmd: Command): readonly EnvInput[] => tableFor(cmd).env;
