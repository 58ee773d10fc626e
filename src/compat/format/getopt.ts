/**
 * @module format/getopt
 * A small getopt_long twin for the query commands (squeue, sinfo): bundled
 * short flags, attached or separate arguments, `optional` arguments that must
 * be attached, unambiguous long-option prefixes, argv permutation, and glibc's
 * exact error wording. Table-driven by the caller's option rows.
 */
import { err, ok, type Result } from "../../lib/result.ts";

export type ArgMode = "none" | "required" | "optional";

/** One option: its long names (aliases share the id), short letter and argument mode. */
export interface OptionRow {
  id: string;
  long: readonly string[];
  short?: string;
  arg: ArgMode;
}

export interface ParsedOption {
  id: string;
  value: string | undefined;
}

export interface ParsedArgs {
  options: ParsedOption[];
  positionals: string[];
  /** glibc's message for the first bad option; options before it are kept. */
  error?: string;
}

interface Cursor {
  argv: readonly string[];
  index: number;
}

type Step = Result<ParsedOption[]>;

function findLong(cmd: string, text: string, rows: readonly OptionRow[]): Result<OptionRow> {
  const name = text.split("=")[0] ?? "";
  const exact = rows.find((r) => r.long.includes(name));
  if (exact) return ok(exact);
  const hits: [string, OptionRow][] = [];
  for (const r of rows) for (const l of r.long) if (l.startsWith(name)) hits.push([l, r]);
  const first = hits[0];
  if (first === undefined) return err("BadOption", `${cmd}: unrecognized option '--${text}'`);
  const distinct = new Set(hits.map(([, r]) => `${r.id}/${r.arg}`));
  if (distinct.size > 1) {
    const names = hits.map(([l]) => ` '--${l}'`).join("");
    return err("BadOption", `${cmd}: option '--${name}' is ambiguous; possibilities:${names}`);
  }
  return ok(first[1]);
}

function longOption(cmd: string, text: string, rows: readonly OptionRow[], c: Cursor): Step {
  const found = findLong(cmd, text, rows);
  if (!found.ok) return found;
  const row = found.value;
  const eq = text.indexOf("=");
  const fullName = row.long.find((l) => l.startsWith(text.split("=")[0] ?? "")) ?? "";
  if (eq >= 0) {
    if (row.arg === "none") return err("BadOption", `${cmd}: option '--${fullName}' doesn't allow an argument`);
    return ok([{ id: row.id, value: text.slice(eq + 1) }]);
  }
  if (row.arg !== "required") return ok([{ id: row.id, value: undefined }]);
  const next = c.argv[c.index];
  if (next === undefined) return err("BadOption", `${cmd}: option '--${fullName}' requires an argument`);
  c.index++;
  return ok([{ id: row.id, value: next }]);
}

function shortOptions(cmd: string, text: string, rows: readonly OptionRow[], c: Cursor): Step {
  const out: ParsedOption[] = [];
  for (let i = 0; i < text.length; i++) {
    const letter = text[i] ?? "";
    const row = rows.find((r) => r.short === letter);
    if (row === undefined) return err("BadOption", `${cmd}: invalid option -- '${letter}'`);
    const rest = text.slice(i + 1);
    if (row.arg === "none") {
      out.push({ id: row.id, value: undefined });
      continue;
    }
    if (rest !== "") {
      out.push({ id: row.id, value: rest });
      return ok(out);
    }
    if (row.arg === "optional") {
      out.push({ id: row.id, value: undefined });
      return ok(out);
    }
    const next = c.argv[c.index];
    if (next === undefined) return err("BadOption", `${cmd}: option requires an argument -- '${letter}'`);
    c.index++;
    out.push({ id: row.id, value: next });
    return ok(out);
  }
  return ok(out);
}

/**
 * Parse argv (without the program name). Options are returned in command-line
 * order; non-option words are collected (getopt's permutation) and "--" ends
 * option parsing. A bad option stops parsing with glibc's message in `error`
 * (callers act on earlier options such as --help first, then print it).
 */
export function getoptLong(cmd: string, argv: readonly string[], rows: readonly OptionRow[]): ParsedArgs {
  const cursor: Cursor = { argv, index: 0 };
  const options: ParsedOption[] = [];
  const positionals: string[] = [];
  while (cursor.index < argv.length) {
    const word = argv[cursor.index] ?? "";
    cursor.index++;
    if (word === "--") {
      positionals.push(...argv.slice(cursor.index));
      break;
    }
    if (!word.startsWith("-") || word === "-") {
      positionals.push(word);
      continue;
    }
    const step = word.startsWith("--")
      ? longOption(cmd, word.slice(2), rows, cursor)
      : shortOptions(cmd, word.slice(1), rows, cursor);
    if (!step.ok) return { options, positionals, error: step.error.message };
    options.push(...step.value);
  }
  return { options, positionals };
}
