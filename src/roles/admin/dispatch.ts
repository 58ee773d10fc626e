/**
 * @module roles/admin/dispatch
 * Runs a `spur` command line through the citty command tree (commands.ts): finds the
 * sub-command (loading only its module), answers --help/-h with the usage generated from
 * its declarations (usage.ts),
 * refuses what the command does not declare (strict.ts: unknown flags, a missing value,
 * extra operands; exit 1 and a `Try "spur X --help"` hint), then parses the typed args with
 * citty's parseArgs and runs the command with them. `parseCommandLine` is the pure part the unit tests drive.
 * Failure policy: an error a command throws is printed as its message, exit 1.
 */
import type { ArgsDef, ParsedArgs } from "citty";
import { flagErrorText } from "../../lib/flags.ts";
import { writeOutput } from "../cli/stdio.ts";
import type { AdminCommand } from "./command.ts";
import { strictCheck } from "./strict.ts";
import { load, usageText } from "./usage.ts";

type Loadable = AdminCommand | (() => AdminCommand | Promise<AdminCommand>) | Promise<AdminCommand>;

const argsOf = async (cmd: AdminCommand): Promise<ArgsDef> => (cmd.args === undefined ? {} : ((await load(cmd.args)) as ArgsDef));
const subsOf = async (cmd: AdminCommand): Promise<Record<string, Loadable> | undefined> =>
  cmd.subCommands === undefined ? undefined : ((await load(cmd.subCommands)) as Record<string, Loadable>);

/** What a command line comes to. `path`: the command's words (`["spur", "net", "init"]`). */
export type CommandLine =
  | { kind: "help"; cmd: AdminCommand; path: string[]; exitCode: number; stream: "stdout" | "stderr" }
  | { kind: "refused"; text: string; exitCode: number }
  | { kind: "run"; cmd: AdminCommand; path: string[]; rawArgs: string[]; args: ParsedArgs };

const wantsHelp = (words: readonly string[]): boolean => {
  const own = words.includes("--") ? words.slice(0, words.indexOf("--")) : words;
  return own.includes("--help") || own.includes("-h");
};

const hint = (path: readonly string[]): string => `Try "${path.join(" ")} --help" for more information\n`;

/** Walks `argv` down the command tree from `root` (`spur`, `help` and all). */
export async function parseCommandLine(root: AdminCommand, argv: readonly string[]): Promise<CommandLine> {
  let cmd = root;
  const path = ["spur"];
  let words = [...argv];
  // `spur help [COMMAND...]`: that command's usage.
  const asHelp = words[0] === "help";
  if (asHelp) words = words.slice(1);
  for (;;) {
    const subs = await subsOf(cmd);
    if (subs === undefined) break;
    const at = words.findIndex((w) => !w.startsWith("-") || w === "-");
    const name = at < 0 || words.slice(0, at).includes("--") ? undefined : words[at];
    if (asHelp && name === undefined) return { kind: "help", cmd, path, exitCode: 0, stream: "stdout" };
    if (wantsHelp(at < 0 ? words : words.slice(0, at))) return { kind: "help", cmd, path, exitCode: 0, stream: "stdout" };
    const refused = strictCheck({}, at < 0 ? words : words.slice(0, at));
    if (refused !== undefined) return { kind: "refused", text: flagErrorText("spur", refused, path.join(" ")), exitCode: 1 };
    // A group alone (`spur`, `spur net`): its usage, and the status of a command that did nothing.
    if (name === undefined) return { kind: "help", cmd, path, exitCode: 1, stream: "stdout" };
    const sub = subs[name];
    if (sub === undefined) return { kind: "refused", text: `spur: error: unknown command "${[...path.slice(1), name].join(" ")}"\n${hint(path)}`, exitCode: 1 };
    cmd = await load(sub);
    path.push(name);
    words = words.slice(at + 1);
  }
  if (asHelp || wantsHelp(words)) return { kind: "help", cmd, path, exitCode: 0, stream: "stdout" };
  const argsDef = await argsOf(cmd);
  const refused = strictCheck(argsDef, words, cmd.rest);
  if (refused !== undefined) return { kind: "refused", text: flagErrorText("spur", refused, path.join(" ")), exitCode: 1 };
  // what follows `--` in `spur exec HOST -- CMD...` is CMD's, not exec's positionals
  const own = cmd.rest?.afterDash === true && words.includes("--") ? words.slice(0, words.indexOf("--")) : words;
  // citty's runtime (and node:util under it) loads only for a command that runs, not for --help
  const { parseArgs } = await import("citty");
  return { kind: "run", cmd, path, rawArgs: words, args: parseArgs(own, argsDef) };
}

/** Runs `spur ARGV...` (after the fast paths of roles/spur.ts); the exit status. */
export async function runAdmin(root: AdminCommand, argv: readonly string[], footer = ""): Promise<number> {
  try {
    const line = await parseCommandLine(root, argv);
    if (line.kind === "help") {
      await writeOutput(line.stream, await usageText(line.cmd, line.path.length === 1 ? footer : ""));
      return line.exitCode;
    }
    if (line.kind === "refused") {
      await writeOutput("stderr", line.text);
      return line.exitCode;
    }
    // citty's runCommand would parse again, all of rawArgs: run the command with the args checked here
    const result: unknown = await line.cmd.run?.({ rawArgs: line.rawArgs, args: line.args, cmd: line.cmd });
    return typeof result === "number" ? result : 0;
  } catch (error) {
    await writeOutput("stderr", `${(error as Error).message}\n`);
    return 1;
  }
}
