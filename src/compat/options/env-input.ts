/**
 * @module compat/options/env-input
 * Option assignments from the three sources (command line, input variables, #SBATCH lines)
 * in one shape. Building a spec applies them in precedence order: script, then environment,
 * then command line, so a later source overrides an earlier one (Slurm's order).
 */
import type { Support } from "./row-types.ts";
import type { ParsedOption } from "./parse-args.ts";
import { envInputsFor, type Command, type HasArg } from "./table.ts";

export type Source = "script" | "env" | "cli";

/** One option (or env-only setting) given once, from one source. */
export interface Assignment {
  /** Option name ("time") or env-only setting ("umask", "exit-error", "alloc-nodelist", "switches"). */
  name: string;
  /** The argument; undefined for a set flag or an absent optional argument. */
  value: string | undefined;
  /** An input variable turned a flag off: undo earlier settings of this option. */
  reset: boolean;
  source: Source;
  /** As the user wrote it: "--time", "-t", "SBATCH_TIMELIMIT". */
  origin: string;
  support: Support;
  hasArg: HasArg;
}

/** Command-line or directive options as assignments. */
export function fromParsed(options: readonly ParsedOption[], source: Source): Assignment[] {
  return options.map((o) => ({
    name: o.def.name,
    value: o.value,
    reset: false,
    source,
    origin: o.spelled,
    support: o.def.support,
    hasArg: o.def.hasArg,
  }));
}

/**
 * Slurm's rule for flags given as variables: empty, "yes" (any case) or a non-zero integer
 * turns the flag on; anything else turns it off.
 */
export function envFlagOn(value: string): boolean {
  if (value === "" || value.toLowerCase() === "yes") return true;
  return /^\s*[+-]?[0-9]+$/.test(value) && Number(value) !== 0;
}

/** Assignments from the input variables a command reads (table order; later overrides earlier). */
export function envAssignments(cmd: Command, env: Readonly<Record<string, string | undefined>>): Assignment[] {
  const out: Assignment[] = [];
  for (const input of envInputsFor(cmd)) {
    const raw = env[input.envVar];
    if (raw === undefined) continue;
    const base = { name: input.target, source: "env" as const, origin: input.envVar, support: input.support };
    if (input.hasArg === "none") {
      out.push({ ...base, value: raw, reset: !envFlagOn(raw), hasArg: "none" });
    } else if (input.hasArg === "optional") {
      out.push({ ...base, value: raw === "" ? undefined : raw, reset: false, hasArg: "optional" });
    } else {
      out.push({ ...base, value: raw, reset: false, hasArg: "required" });
    }
  }
  return out;
}
