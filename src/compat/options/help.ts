/**
 * @module compat/options/help
 * --help, --usage and --version texts, generated from the option table (syntax and the
 * table's own one-line descriptions), so they can never disagree with what is parsed.
 * Options Spur ignores or rejects are marked. The version line is that of every
 * Slurm-named command: the Slurm release Spur follows (compat/slurm-release).
 */
import { SLURM_VERSION_LINE } from "../slurm-release.ts";
import { optionsFor, tableFor, type Command, type OptionDef } from "./table.ts";
import { usageNames } from "./usage-selection.ts";

export const versionText = (): string => `${SLURM_VERSION_LINE}\n`;

const OPERANDS: Record<Command, string> = {
  sbatch: "script [args...]",
  srun: "executable [args...]",
  salloc: "[command [args...]]",
};

const COLUMN = 34;
const WIDTH = 80;

function marker(d: OptionDef): string {
  if (d.support === "warn") return " (ignored by Spur)";
  if (d.support === "error") return " (not supported by Spur)";
  return "";
}

function syntaxOf(d: OptionDef): string {
  if (d.syntax !== "") return d.short === "" ? `    ${d.syntax}` : d.syntax;
  return d.short === "" ? `    --${d.name}` : `-${d.short}, --${d.name}`;
}

function helpLine(d: OptionDef): string {
  const left = `  ${syntaxOf(d)}`;
  const right = `${d.description}${marker(d)}`;
  if (left.length < COLUMN) return `${left.padEnd(COLUMN)}${right}`;
  return `${left}\n${" ".repeat(COLUMN)}${right}`;
}

/** Options shown to users: documented ones, once per getopt key. */
function shown(cmd: Command): OptionDef[] {
  const seen = new Set<string>();
  return optionsFor(cmd).filter((d) => {
    if (!d.documented || seen.has(d.key)) return false;
    seen.add(d.key);
    return true;
  });
}

export function helpText(cmd: Command): string {
  const lines = [`Usage: ${cmd} [OPTIONS...] ${OPERANDS[cmd]}`, "", "Options:", ...shown(cmd).map(helpLine)];
  return `${lines.join("\n")}\n`;
}

/** Placeholders for values whose syntax is a choice list, too long for a usage token. */
const PLACEHOLDER: Record<string, string> = {
  distribution: "dist", export: "names", "export-file": "file|fd", profile: "types", "gpu-freq": "spec", exclude: "hosts",
  "kill-on-bad-exit": "0|1", epilog: "executable", "bcast-exclude": "paths", "send-libs": "yes|no",
};

/**
 * The argument's placeholder from the syntax column: "--time=<time>" → "time",
 * "--mem=<size>[units]" → "size[units]", "--gpu-bind=[verbose,]<type>" → "type".
 */
function argName(d: OptionDef): string {
  const fixed = PLACEHOLDER[d.name];
  if (fixed !== undefined) return fixed;
  const m = new RegExp(`--${d.name}(?:\\[=(.*)\\]|=(.*))$`).exec(d.syntax);
  let value = m?.[1] ?? m?.[2] ?? "";
  value = value.replace(/^\[\{[^}]*\},\]|^\[[a-z]+,\]/, "").replace(/^\{(.*)\}$/, "$1");
  value = (value.split(/\[?,/)[0] ?? "").split("|")[0] ?? "";
  value = value.replace(/[<>]/g, "");
  return value === "" ? "value" : value;
}

function usageToken(d: OptionDef): string {
  if (d.short !== "") return d.hasArg === "required" ? `[-${d.short} ${argName(d)}]` : `[-${d.short}]`;
  if (d.hasArg === "required") return `[--${d.name}=${argName(d)}]`;
  return d.hasArg === "optional" ? `[--${d.name}[=${argName(d)}]]` : `[--${d.name}]`;
}

/** --usage: the everyday options only (compat/options/usage-selection), one short screen. */
export function usageText(cmd: Command): string {
  const head = `Usage: ${cmd} `;
  const indent = " ".repeat(head.length);
  const { byName } = tableFor(cmd);
  const defs = usageNames(cmd).flatMap((n) => {
    const d = byName.get(n);
    return d !== undefined && d.documented ? [d] : [];
  });
  const tokens = [...defs.map(usageToken), OPERANDS[cmd]];
  const lines: string[] = [];
  let line = head;
  for (const token of tokens) {
    if (line.length + token.length > WIDTH && line.trim() !== head.trim()) {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += `${token} `;
  }
  lines.push(line.trimEnd());
  return `${lines.join("\n")}\n`;
}
