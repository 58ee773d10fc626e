/**
 * @module tests/differential/render
 * A case as what a user types: the bash command line (SBATCH_* assignments, sbatch and its
 * arguments) and the batch script (shebang, comments, blank lines, #SBATCH lines, the first
 * command), or the query command. Pure: the same case renders the same text on both sides.
 */
import { optionsFor } from "../../src/compat/options/table.ts";
import { uniquePrefix, type Case, type OptionUse, type SubmitCase } from "./generator.ts";

/** Single-quote for bash. */
export const q = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

const defs = new Map(optionsFor("sbatch").map((d) => [d.name, d]));

/** argv words of one option as spelled (values raw, unquoted). */
export function spell(o: OptionUse): string[] {
  const d = defs.get(o.name);
  const short = d?.short ?? "";
  const long = o.spelling === "abbrev" ? uniquePrefix(o.name) : o.name;
  const v = o.value;
  if ((o.spelling === "short" || o.spelling === "short-attached") && short !== "") {
    if (v === undefined) return [`-${short}`];
    if (o.spelling === "short-attached" || d?.hasArg === "optional") return [`-${short}${v}`];
    return [`-${short}`, v];
  }
  if (v === undefined) return [`--${long}`];
  if (o.spelling === "long-space" && d?.hasArg === "required") return [`--${long}`, v];
  return [`--${long}=${v}`];
}

/** A directive word: double quotes group words with spaces (sbatch removes them). */
const dq = (w: string): string => (w === "" || /[\s#'"]/.test(w) ? `"${w}"` : w);

/** The batch script of a case (directives in the layout's slots). */
export function scriptOf(c: SubmitCase): string {
  const directives = c.options.filter((o) => o.placement === "directive");
  const lines = ["#!/bin/bash"];
  let next = 0;
  for (const t of c.layout) {
    if (t === "comment") lines.push("# a comment line");
    else if (t === "blank") lines.push("");
    else if (t === "command") lines.push("true");
    else {
      const o = directives[next++];
      if (o === undefined) continue;
      lines.push(`#SBATCH ${spell(o).map(dq).join(" ")}${o.trailingComment ? " # why" : ""}`);
    }
  }
  lines.push("exit 0");
  return `${lines.join("\n")}\n`;
}

export interface Rendered {
  /** bash command line, run in the case's directory. */
  cmd: string;
  /** Contents of ./job.sh, when the case submits a script file. */
  script?: string;
}

/** Render a case; `name` is the unique job name given when the case names none itself. */
export function render(c: Case, name: string, job?: string): Rendered {
  if (c.kind === "query") {
    const words = c.words.map((w) => q(w.replace(/\$J\b/g, job ?? "0").replace(/\$NAME\b/g, name)));
    return { cmd: `${c.tool} ${words.join(" ")}` };
  }
  const env = c.options.filter((o) => o.placement === "env").map((o) => `${o.envVar}=${q(o.value ?? "1")}`);
  const cli = c.options.filter((o) => o.placement === "cli").flatMap(spell).map(q);
  const named = c.options.some((o) => o.name === "job-name");
  const args = [...(named ? [] : ["-J", name]), ...cli, ...(c.wrap ? ["--wrap=true"] : ["job.sh"])];
  const cmd = [...env, "sbatch", ...args].join(" ");
  return c.wrap ? { cmd } : { cmd, script: scriptOf(c) };
}
