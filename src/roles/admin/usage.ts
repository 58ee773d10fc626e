/**
 * @module roles/admin/usage
 * `spur CMD --help`, generated from the command's citty declarations (meta, args,
 * sub-commands, rest operands), in the style of Spur's other commands: plain text (citty's
 * own renderUsage colours its output even into a pipe, and right-aligns the flag column),
 * flags as getopt spells them (`-d, --detach`, `--state-dir DIR`), defaults shown.
 */
import type { ArgDef, ArgsDef, CommandMeta } from "citty";
import type { AdminCommand } from "./command.ts";

type Loadable<T> = T | Promise<T> | (() => T | Promise<T>);
export const load = async <T>(x: Loadable<T>): Promise<T> => (typeof x === "function" ? await (x as () => T | Promise<T>)() : await x);

const table = (rows: readonly (readonly [string, string])[]): string[] => {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => (right === "" ? `  ${left}` : `  ${left.padEnd(width)}  ${right}`));
};

const hintOf = (name: string, def: ArgDef): string => def.valueHint ?? name.toUpperCase().replace(/-/g, "_");

function flagLeft(name: string, def: ArgDef): string {
  const alias = "alias" in def ? def.alias : undefined;
  const aliases = alias === undefined ? [] : typeof alias === "string" ? [alias] : alias;
  const shorts = aliases.filter((a) => a.length === 1).map((a) => `-${a}`);
  const longs = [name, ...aliases.filter((a) => a.length > 1)].map((a) => `--${a}`);
  const names = `${shorts.length > 0 ? `${shorts.join(", ")}, ` : "    "}${longs.join(", ")}`;
  return def.type === "boolean" ? names : `${names} ${hintOf(name, def)}`;
}

const described = (def: ArgDef): string => [def.description ?? "", def.default !== undefined && def.type !== "boolean" ? `(default: ${String(def.default)})` : ""].filter(Boolean).join(" ");

/** The usage text of `cmd`; `footer` ends it (the root's line on roles). */
export async function usageText(cmd: AdminCommand, footer = ""): Promise<string> {
  const meta: CommandMeta = cmd.meta === undefined ? {} : await load(cmd.meta);
  const args = Object.entries(cmd.args === undefined ? {} : await load<ArgsDef>(cmd.args as Loadable<ArgsDef>));
  const subs = cmd.subCommands === undefined ? undefined : await load(cmd.subCommands);
  const name = meta.name ?? "spur";
  const positionals = args.filter(([, d]) => d.type === "positional");
  const flags = args.filter(([, d]) => d.type !== "positional");
  const rest = cmd.rest === undefined ? [] : [cmd.rest.afterDash ? `-- ${cmd.rest.name}...` : `[${cmd.rest.name}...]`];
  const words = [
    `Usage: ${name}`, ...(subs === undefined ? [] : ["COMMAND"]), ...(flags.length > 0 ? ["[options]"] : []),
    // Positionals are declared `required: false` so that citty leaves the check, and its exit status,
    // to the command (`spur net init` without a plan: 2, as before); only one with a default is optional.
    ...positionals.map(([n, d]) => (d.default !== undefined ? `[${hintOf(n, d)}]` : hintOf(n, d))), ...rest,
  ];
  const out = [words.join(" "), ...(meta.description === undefined ? [] : [`${meta.description[0]?.toUpperCase() ?? ""}${meta.description.slice(1)}.`])];
  if (positionals.length > 0) out.push("", "Arguments:", ...table(positionals.map(([n, d]) => [hintOf(n, d), described(d)])));
  if (flags.length > 0) out.push("", "Options:", ...table(flags.map(([n, d]) => [flagLeft(n, d), described(d)])));
  if (subs !== undefined) {
    const rows: [string, string][] = [];
    for (const [sub, def] of Object.entries(subs)) {
      const m: CommandMeta = (await load(def as Loadable<AdminCommand>)).meta === undefined ? {} : await load((await load(def as Loadable<AdminCommand>)).meta as Loadable<CommandMeta>);
      if (m.hidden !== true) rows.push([sub, m.description ?? ""]);
    }
    out.push("", "Commands:", ...table(rows), "", `Try "${name} COMMAND --help" for a command's options.`);
  }
  return `${out.join("\n")}\n${footer}`;
}
