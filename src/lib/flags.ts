/**
 * @module lib/flags
 * The one strict flag parser for Spur's own daemons (spurctld, spurd, spurrestd) and,
 * through roles/admin/strict.ts, the check of every `spur` sub-command's line against its
 * declared (citty) args. Slurm's user commands do NOT use it: they parse through the
 * option tables in src/compat/options.
 *
 * getopt_long's rules, minus abbreviations: `--name value`, `--name=value`, `-x value`,
 * `-xvalue`, clustered short booleans (`-dn`), options and operands in any order, `--`
 * ends the options. What getopt would refuse is refused here too, in its wording
 * (`unrecognized option '--cnof'`), so a mistyped flag stops the command instead of
 * being ignored. A repeated value flag keeps its last value, as with getopt.
 * Pure: argv in, values or a SpurError out; the shell prints `flagErrorText`.
 */
import { err, ok, type Result, type SpurError } from "./result.ts";

/** One flag's names, canonical first: `["--conf", "-f"]`. Long names start `--`, short ones are `-x`. */
export type FlagNames = readonly [string, ...string[]];

export interface FlagSpec {
  /** Flags that take a value. */
  readonly values?: readonly FlagNames[];
  /** Flags that take none (`--force`). */
  readonly booleans?: readonly FlagNames[];
  /** The most operands (non-option words) accepted; 0 or absent: none. */
  readonly operands?: number;
}

type Canonical<L> = L extends readonly (infer E)[] ? (E extends readonly [infer N, ...unknown[]] ? N & string : never) : never;
/** The canonical names of a spec's value flags. */
export type ValueName<S extends FlagSpec> = Canonical<S["values"]>;
/** The canonical names of a spec's boolean flags. */
export type BooleanName<S extends FlagSpec> = Canonical<S["booleans"]>;

export interface Flags<S extends FlagSpec> {
  /** Each value flag given, by its canonical name. */
  readonly values: Partial<Record<ValueName<S>, string>>;
  /** Each boolean flag given, by its canonical name. */
  readonly on: Partial<Record<BooleanName<S>, true>>;
  readonly operands: readonly string[];
}

/** Codes of the errors `parseFlags` returns. */
export const FLAG_ERRORS = ["UnrecognizedOption", "InvalidOption", "MissingArgument", "UnexpectedArgument", "ExtraOperand"] as const;

function nameTable(spec: FlagSpec): Map<string, { canonical: string; takesValue: boolean }> {
  const table = new Map<string, { canonical: string; takesValue: boolean }>();
  const add = (list: readonly FlagNames[] | undefined, takesValue: boolean): void => {
    for (const names of list ?? []) {
      for (const name of names) {
        if (!/^(--[A-Za-z0-9][-A-Za-z0-9]*|-[A-Za-z0-9])$/.test(name)) throw new Error(`flags: bad flag name "${name}"`);
        if (table.has(name)) throw new Error(`flags: "${name}" declared twice`);
        table.set(name, { canonical: names[0], takesValue });
      }
    }
  };
  add(spec.values, true);
  add(spec.booleans, false);
  return table;
}

/** Parses `argv` (without the program name) against `spec`; the first refused word is the error. */
export function parseFlags<const S extends FlagSpec>(argv: readonly string[], spec: S): Result<Flags<S>> {
  const table = nameTable(spec);
  const values: Record<string, string> = {};
  const on: Record<string, true> = {};
  const operands: string[] = [];
  const operandsMax = spec.operands ?? 0;
  const operand = (word: string): SpurError | undefined => {
    if (operands.length >= operandsMax) return { code: "ExtraOperand", message: `extra operand '${word}'` };
    operands.push(word);
    return undefined;
  };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    let failure: SpurError | undefined;
    if (word === "--") {
      for (const rest of argv.slice(i + 1)) failure ??= operand(rest);
      if (failure !== undefined) return { ok: false, error: failure };
      break;
    }
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const name = eq < 0 ? word : word.slice(0, eq);
      const flag = table.get(name);
      if (flag === undefined) return err("UnrecognizedOption", `unrecognized option '${word}'`);
      if (!flag.takesValue) {
        if (eq >= 0) return err("UnexpectedArgument", `option '${name}' doesn't allow an argument`);
        on[flag.canonical] = true;
      } else if (eq >= 0) values[flag.canonical] = word.slice(eq + 1);
      else if (i + 1 < argv.length) values[flag.canonical] = argv[++i] as string;
      else return err("MissingArgument", `option '${name}' requires an argument`);
      continue;
    }
    if (word.startsWith("-") && word.length > 1) {
      for (let j = 1; j < word.length; j++) {
        const letter = word[j] as string;
        const flag = table.get(`-${letter}`);
        if (flag === undefined) return err("InvalidOption", `invalid option -- '${letter}'`);
        if (!flag.takesValue) {
          on[flag.canonical] = true;
          continue;
        }
        if (j + 1 < word.length) values[flag.canonical] = word.slice(j + 1);
        else if (i + 1 < argv.length) values[flag.canonical] = argv[++i] as string;
        else return err("MissingArgument", `option requires an argument -- '${letter}'`);
        break;
      }
      continue;
    }
    failure = operand(word);
    if (failure !== undefined) return { ok: false, error: failure };
  }
  return ok({ values, on, operands } as Flags<S>);
}

/** What a command prints for a refused command line (getopt's two lines, Slurm's hint wording); exit 1 after it. */
export function flagErrorText(prog: string, error: SpurError, helpCommand: string = prog): string {
  return `${prog}: ${error.message}\nTry "${helpCommand} --help" for more information\n`;
}

/** Thrown by `parseFlagsOrThrow`; its message is `flagErrorText` without the last newline. */
export class FlagError extends Error {
  override readonly name = "FlagError";
}

/**
 * `parseFlags` for shells whose failures travel as thrown errors to the one place that
 * prints them and exits 1 (main.ts's catch, `spur`'s dispatcher).
 */
export function parseFlagsOrThrow<const S extends FlagSpec>(prog: string, argv: readonly string[], spec: S, helpCommand: string = prog): Flags<S> {
  const r = parseFlags(argv, spec);
  if (!r.ok) throw new FlagError(flagErrorText(prog, r.error, helpCommand).trimEnd());
  return r.value;
}
