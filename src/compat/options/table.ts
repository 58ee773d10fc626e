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
import type { Command, EnvInput, OptionDef, PlainTable } from "./table-types.ts";
import { KEY_ALIASES } from "./option-aliases.ts";
// Evaluated by Bun's bundler at build time (a macro): the compiled binary carries each
// command's finished table as literals instead of deriving it from the rows on every start
// (1-2 ms of every sbatch call, docs/startup.md). Elsewhere (tests, `bun src/...`) it runs as
// an ordinary call, so both paths give the same table.
import { builtTableJson } from "./table-built.ts" with { type: "macro" };

export type { Command, EnvInput, HasArg, OptionDef, PlainTable } from "./table-types.ts";

/** The option a spelling stands for (Slurm names it in its messages: --tasks-per-node=abc → "--ntasks-per-node"). */
export const canonicalName = (name: string): string => KEY_ALIASES[name] ?? name;

interface CommandTable {
  options: readonly OptionDef[];
  byName: ReadonlyMap<string, OptionDef>;
  byShort: ReadonlyMap<string, OptionDef>;
  env: readonly EnvInput[];
}

/** Each command's table as the build inlined it (JSON text per command, parsed only when reached). */
function prebuilt(cmd: Command): PlainTable {
  switch (cmd) {
    case "sbatch":
      return JSON.parse(builtTableJson("sbatch")) as PlainTable;
    case "srun":
      return JSON.parse(builtTableJson("srun")) as PlainTable;
    case "salloc":
      return JSON.parse(builtTableJson("salloc")) as PlainTable;
  }
}

function buildTable(cmd: Command): CommandTable {
  const { options, env } = prebuilt(cmd);
  // One plain loop, no callback per option: a callback run ~200 times gets JIT-compiled, and in
  // a CLI's short life the first compilation (the JIT's set-up) costs more than it saves (issue 16).
  const byShort = new Map<string, OptionDef>();
  const byName = new Map<string, OptionDef>();
  for (const d of options) {
    byName.set(d.name, d);
    if (d.short !== "" && !byShort.has(d.short)) byShort.set(d.short, d);
  }
  return { options, byName, byShort, env };
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
