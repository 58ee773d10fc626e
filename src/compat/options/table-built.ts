/**
 * @module compat/options/table-built
 * The build-time half of table.ts: the option tables derived from the three fact tables
 * (rows of table-sbatch/srun/salloc/container.ts). Bun's bundler imports `builtTable` as a
 * macro (`with { type: "macro" }` in table.ts) and inlines what it returns as a literal, so
 * the compiled binary neither carries the rows nor derives the tables on every start
 * (1-2 ms of every sbatch call, docs/startup.md). Elsewhere (tests, `bun src/...`) it runs as
 * an ordinary call and gives the same table. Returns JSON-shaped data (no Maps, no functions).
 */
import { SALLOC_ROWS } from "./table-salloc.ts";
import { SBATCH_ROWS } from "./table-sbatch.ts";
import { CONTAINER_ROWS } from "./table-container.ts";
import { SRUN_ROWS } from "./table-srun.ts";
import type { Support } from "./row-types.ts";
import { KEY_ALIASES } from "./option-aliases.ts";
import type { Command, EnvInput, HasArg, OptionDef, PlainTable } from "./table-types.ts";

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

/**
 * Where the fact table's argument columns are wrong, checked against Slurm's own option definition and
 * the oracle: --get-user-env takes an optional [timeout][S|L] (22.05 accepts =L, =10S; the table says none).
 */
const ARG_CORRECTIONS: Readonly<Record<string, Pick<OptionDef, "hasArg" | "argKind" | "syntax">>> = {
  "get-user-env": { hasArg: "optional", argKind: "opt:spec([timeout][S|L])", syntax: "--get-user-env[=timeout][mode]" },
};

function toDef(r: Raw): OptionDef {
  const name = r.long.slice(2);
  const fixed = ARG_CORRECTIONS[name];
  return {
    name,
    short: r.short.replace(/^-/, ""),
    hasArg: fixed?.hasArg ?? (r.hasArg as HasArg),
    argKind: fixed?.argKind ?? r.argKind,
    syntax: fixed?.syntax ?? r.syntax,
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


/** A command's options and input variables, derived from the rows. */
export function builtTable(cmd: Command): PlainTable {
  const raw = rawFor(cmd);
  const options = raw.filter(isOption).map(toDef);
  return { options, env: envInputs(raw, options) };
}

/**
 * The same table as JSON text: what the build inlines (table.ts parses it once per run).
 * JSON.parse of one string literal is native work; the same data as an object literal is a
 * function of some thousand property stores that a fresh process must load from the bytecode
 * cache and interpret: measured about 1 ms less per sbatch call this way (issue 16).
 */
export function builtTableJson(cmd: Command): string {
  return JSON.stringify(builtTable(cmd));
}
