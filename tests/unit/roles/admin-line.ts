/**
 * @module tests/unit/roles/admin-line
 * Test helpers: a `spur ...` command line through the real command tree
 * (roles/admin/commands.ts, dispatch.ts), without running anything.
 */
import type { ArgsDef, ParsedArgs } from "citty";
import { spurCommand } from "../../../src/roles/admin/commands.ts";
import type { AdminCommand } from "../../../src/roles/admin/command.ts";
import { parseCommandLine, type CommandLine } from "../../../src/roles/admin/dispatch.ts";
import { load } from "../../../src/roles/admin/usage.ts";

export const line = (...argv: string[]): Promise<CommandLine> => parseCommandLine(spurCommand, argv);

/** The typed args of `spur ARGV...`, checked to be those of the command declaring `def`. */
export async function argsOf<T extends ArgsDef>(def: T, ...argv: string[]): Promise<ParsedArgs<T>> {
  const l = await line(...argv);
  if (l.kind !== "run") throw new Error(`spur ${argv.join(" ")}: ${l.kind === "refused" ? l.text : "help"}`);
  if (l.cmd.args !== def) throw new Error(`spur ${argv.join(" ")} is not the command that declares these args`);
  return l.args as ParsedArgs<T>;
}

/** Every runnable command of the tree, as its words after `spur` (`["net", "init"]`); `help` is the dispatcher's. */
export async function leaves(cmd: AdminCommand = spurCommand, path: string[] = []): Promise<string[][]> {
  if (cmd.subCommands === undefined) return [path];
  const out: string[][] = [];
  for (const [name, sub] of Object.entries(await load(cmd.subCommands))) {
    if (name !== "help") out.push(...(await leaves(await load(sub as AdminCommand), [...path, name])));
  }
  return out;
}
