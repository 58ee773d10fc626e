/**
 * @module roles/admin/strict
 * citty parses with node:util's parseArgs in its lenient mode: a mistyped flag
 * (`--nodse 2`), a camelCase spelling, `--no-<anything>` or a value flag without its value
 * pass silently. This check runs first, on each command's own declared args: their flags
 * and positionals become a getopt spec for lib/flags.ts, the one strict parser of Spur's
 * own commands, so a refusal reads as getopt's (`unrecognized option '--nodse'`) with the
 * `Try "spur up --help"` hint, exit 1. --help/-h are the dispatcher's, never a command's.
 */
import type { ArgsDef } from "citty";
import { parseFlags, type FlagNames, type FlagSpec } from "../../lib/flags.ts";
import type { SpurError } from "../../lib/result.ts";
import type { RestOperands } from "./command.ts";

const flagName = (name: string): string => (name.length === 1 ? `-${name}` : `--${name}`);

/** The getopt spec of a command's args: `--name` and each alias per flag, its positionals as operands. */
export function flagSpecOf(args: ArgsDef, rest?: RestOperands): FlagSpec {
  const values: FlagNames[] = [];
  const booleans: FlagNames[] = [];
  let positionals = 0;
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") {
      positionals++;
      continue;
    }
    const alias = "alias" in def ? def.alias : undefined;
    const aliases = alias === undefined ? [] : typeof alias === "string" ? [alias] : alias;
    const names: FlagNames = [`--${name}`, ...aliases.map(flagName)];
    (def.type === "boolean" ? booleans : values).push(names);
  }
  const anyMore = rest !== undefined && rest.afterDash !== true;
  return { values, booleans, operands: anyMore ? Number.POSITIVE_INFINITY : positionals };
}

/** The first word of `argv` the command does not declare, as lib/flags words it; undefined when all is well. */
export function strictCheck(args: ArgsDef, argv: readonly string[], rest?: RestOperands): SpurError | undefined {
  // `spur exec HOST -- CMD...`: what follows `--` is another command's, not checked here.
  const own = rest?.afterDash === true && argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  const r = parseFlags(own, flagSpecOf(args, rest));
  return r.ok ? undefined : r.error;
}
