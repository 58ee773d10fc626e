/**
 * @module compat/options/parse-args
 * getopt_long as Slurm's commands use it (optstring "+...": stop at the first operand):
 * --opt=value, --opt value, unique-prefix abbreviations, -n4 / -n 4, bundled flags, optional
 * arguments only when attached, "--" ends options. Error texts follow glibc's getopt, then
 * Slurm's `Try "<cmd> --help" for more information`; all exit 255 (Slurm's exit(-1)).
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { tableFor, type Command, type OptionDef } from "./table.ts";

export interface ParsedOption {
  def: OptionDef;
  /** The argument; undefined for flags and for optional arguments that were not given. */
  value: string | undefined;
  /** How it was written, for messages: "--time", "-t". */
  spelled: string;
}

export interface ParsedArgs {
  options: ParsedOption[];
  /** The first operand and everything after it (script + its args, or the command). */
  operands: string[];
}

/** Code of getopt failures; the message is printed after "<cmd>: " (not "<cmd>: error: "). */
export const USAGE_ERROR = "UsageError";
export const USAGE_EXIT = 255;

const usageErr = (cmd: Command, text: string): Result<never> =>
  err(USAGE_ERROR, `${text}\nTry "${cmd} --help" for more information`, USAGE_EXIT);

type Step = Result<{ parsed: ParsedOption[]; consumed: number }>;

/** Parse argv (without the program name). Stops at the first operand or after "--". */
export function parseArgs(cmd: Command, argv: readonly string[]): Result<ParsedArgs> {
  const options: ParsedOption[] = [];
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i] as string;
    if (arg === "--") return ok({ options, operands: argv.slice(i + 1) });
    if (!arg.startsWith("-") || arg === "-") break;
    const step = arg.startsWith("--") ? longOption(cmd, argv, i) : shortOptions(cmd, argv, i);
    if (!step.ok) return step;
    options.push(...step.value.parsed);
    i += step.value.consumed;
  }
  return ok({ options, operands: argv.slice(i) });
}

/** Exact name first, then a unique prefix (prefixes naming one getopt key are not ambiguous). */
export function matchLong(cmd: Command, name: string): OptionDef | OptionDef[] | undefined {
  const table = tableFor(cmd);
  const exact = table.byName.get(name);
  if (exact !== undefined) return exact;
  const candidates = table.options.filter((d) => d.name.startsWith(name));
  if (candidates.length === 0) return undefined;
  const keys = new Set(candidates.map((d) => d.key));
  return keys.size === 1 ? candidates[0] : candidates;
}

function longOption(cmd: Command, argv: readonly string[], i: number): Step {
  const arg = argv[i] as string;
  const body = arg.slice(2);
  const eq = body.indexOf("=");
  const name = eq < 0 ? body : body.slice(0, eq);
  const attached = eq < 0 ? undefined : body.slice(eq + 1);
  const match = matchLong(cmd, name);
  if (match === undefined) return usageErr(cmd, `${cmd}: unrecognized option '${arg}'`);
  if (Array.isArray(match)) {
    const names = match.map((d) => ` '--${d.name}'`).join("");
    return usageErr(cmd, `${cmd}: option '${arg}' is ambiguous; possibilities:${names}`);
  }
  const spelled = `--${match.name}`;
  if (match.hasArg === "none") {
    if (attached !== undefined) return usageErr(cmd, `${cmd}: option '${spelled}' doesn't allow an argument`);
    return ok({ parsed: [{ def: match, value: undefined, spelled }], consumed: 1 });
  }
  if (match.hasArg === "optional" || attached !== undefined) {
    return ok({ parsed: [{ def: match, value: attached, spelled }], consumed: 1 });
  }
  const next = argv[i + 1];
  if (next === undefined) return usageErr(cmd, `${cmd}: option '${spelled}' requires an argument`);
  return ok({ parsed: [{ def: match, value: next, spelled }], consumed: 2 });
}

function shortOptions(cmd: Command, argv: readonly string[], i: number): Step {
  const arg = argv[i] as string;
  const parsed: ParsedOption[] = [];
  const table = tableFor(cmd);
  for (let pos = 1; pos < arg.length; pos++) {
    const letter = arg[pos] as string;
    const def = table.byShort.get(letter);
    if (def === undefined) return usageErr(cmd, `${cmd}: invalid option -- '${letter}'`);
    const spelled = `-${letter}`;
    const rest = arg.slice(pos + 1);
    if (def.hasArg === "none") {
      parsed.push({ def, value: undefined, spelled });
      continue;
    }
    if (rest !== "" || def.hasArg === "optional") {
      parsed.push({ def, value: rest === "" ? undefined : rest, spelled });
      return ok({ parsed, consumed: 1 });
    }
    const next = argv[i + 1];
    if (next === undefined) return usageErr(cmd, `${cmd}: option requires an argument -- '${letter}'`);
    parsed.push({ def, value: next, spelled });
    return ok({ parsed, consumed: 2 });
  }
  return ok({ parsed, consumed: 1 });
}
