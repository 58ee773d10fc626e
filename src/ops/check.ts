/**
 * @module ops/check
 * `spur check`: the migration estimate for a site's batch scripts. Every #SBATCH word is read
 * with sbatch's own option table and parser, and every option is folded by sbatch's own
 * buildSpec, so a finding here is exactly what sbatch would warn about or refuse. Pure: the
 * caller reads the files; `now` (epoch seconds) only matters for --begin/--deadline values.
 */
import type { SpurError } from "../lib/result.ts";
import { buildSpec, type BatchScript, type SubmitContext } from "../compat/options/build-spec.ts";
import { fromParsed } from "../compat/options/env-input.ts";
import { parseArgs, type ParsedOption } from "../compat/options/parse-args.ts";
import { sbatchRequest } from "../compat/options/sbatch-flow.ts";
import { checkScript, lineWords } from "../compat/options/script-directives.ts";

export type Severity = "info" | "warn" | "error";
export type Verdict = "unchanged" | "warnings" | "fails";

/** One thing a script does that Spur's sbatch treats differently from Slurm's. */
export interface Finding {
  /** 1-based line of the script; 0 = the script as a whole. */
  line: number;
  severity: Severity;
  /** Stable code: NoShebang, EmptyScript, DosLineBreaks, UnknownOption, InvalidDirective, Unsupported,
   * Ignored, Differs, BadValue, LateDirective, ForeignDirective, NotADirective, Hetjob, Script. */
  code: string;
  /** The option as written ("--hint"), when the finding is about one option. */
  option?: string;
  message: string;
}

export interface ScriptReport {
  path: string;
  verdict: Verdict;
  findings: Finding[];
}

export interface CheckSummary {
  total: number;
  unchanged: number;
  warnings: number;
  fails: number;
}

export interface CheckReport {
  scripts: ScriptReport[];
  summary: CheckSummary;
}

export interface CheckOptions {
  /** Epoch seconds (for relative --begin values); default 0. */
  now?: number;
}

const MAGIC = "#SBATCH";

/** sbatch's own warning for #PBS (sbatch-flow.ts); #BSUB lines sbatch skips without a word. */
const FOREIGN_TEXT: Record<string, string> = {
  PBS: "#PBS directives are not supported by Spur and were ignored",
  BSUB: "#BSUB directives are not supported by Spur and were ignored",
};

/** A directive word and the script line it came from. */
interface Word {
  text: string;
  line: number;
}

function context(now: number): SubmitContext {
  return { cmd: "sbatch", argv: [], env: {}, invoker: { cwd: "/", hostname: "spur-check" }, now };
}

/** Split the script into the leading directive block and the lines after the first command. */
function splitBlock(lines: readonly string[]): { block: number; words: Word[] } {
  const words: Word[] = [];
  let i = 0;
  for (; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, "");
    if (!line.startsWith("#")) {
      if (line.trim() === "") continue;
      break;
    }
    if (!line.startsWith(MAGIC)) continue;
    for (const text of lineWords(line.slice(MAGIC.length))) words.push({ text, line: i + 1 });
  }
  return { block: i, words };
}

/** One getopt step over the directive words: the options it yields, or the error, and the words used. */
function step(words: readonly Word[], i: number): { parsed: ParsedOption[]; used: number; error?: SpurError } {
  const first = words[i] as Word;
  const one = parseArgs("sbatch", [first.text]);
  if (one.ok) return { parsed: one.value.options, used: 1 };
  const next = words[i + 1];
  if (next !== undefined && one.error.message.includes("requires an argument")) {
    const two = parseArgs("sbatch", [first.text, next.text]);
    if (two.ok) return { parsed: two.value.options, used: 2 };
  }
  return { parsed: [], used: 1, error: one.error };
}

/** What sbatch's buildSpec says about one option on its own. */
function optionFindings(o: ParsedOption, line: number, ctx: SubmitContext, script: BatchScript): Finding[] {
  const built = buildSpec(ctx, fromParsed([o], "script"), script);
  const base = { line, option: o.spelled };
  if (!built.ok) {
    const code = o.def.support === "error" ? "Unsupported" : "BadValue";
    const spurOnly = built.error.message.includes("by Spur");
    const message = spurOnly ? built.error.message : `${built.error.message} (Slurm refuses it too)`;
    return [{ ...base, severity: "error", code, message }];
  }
  const code = o.def.support === "warn" ? "Ignored" : "Differs";
  return built.value.warnings.map((message) => ({ ...base, severity: "warn" as const, code, message }));
}

interface DirectiveScan {
  findings: Finding[];
  /** --ignore-pbs was among the directives. */
  ignorePbs: boolean;
}

function strayFinding(words: readonly Word[], i: number): Finding {
  const w = words[i] as Word;
  const stray = w.text === "--" ? (words[i + 1]?.text ?? "--") : w.text;
  const message = `Invalid directive found in batch script: ${stray} (Slurm refuses it too)`;
  return { line: w.line, severity: "error", code: "InvalidDirective", message };
}

/** Walk the directive words as getopt does (one argv), attributing each option to its line. */
function directiveFindings(words: readonly Word[], ctx: SubmitContext, script: BatchScript): DirectiveScan {
  const scan: DirectiveScan = { findings: [], ignorePbs: false };
  let i = 0;
  while (i < words.length) {
    const w = words[i] as Word;
    if (w.text === "hetjob" || w.text === "packjob") {
      const message = "heterogeneous jobs (#SBATCH hetjob) are not supported by Spur";
      scan.findings.push({ line: w.line, severity: "error", code: "Hetjob", message });
      i++;
      continue;
    }
    if (w.text === "--" || w.text === "-" || !w.text.startsWith("-")) {
      scan.findings.push(strayFinding(words, i));
      i += w.text === "--" ? 2 : 1;
      continue;
    }
    const s = step(words, i);
    if (s.error !== undefined) {
      const message = `${s.error.message.split("\n")[0] ?? ""} (Slurm refuses it too)`;
      scan.findings.push({ line: w.line, severity: "error", code: "UnknownOption", option: w.text, message });
    }
    for (const o of s.parsed) {
      if (o.def.name === "ignore-pbs") scan.ignorePbs = true;
      scan.findings.push(...optionFindings(o, w.line, ctx, script));
    }
    i += s.used;
  }
  return scan;
}

/** Lines that look like directives but are not read, and PBS/LSF lines Slurm would translate. */
function lineFindings(lines: readonly string[], block: number, pbsIgnored: boolean): Finding[] {
  const out: Finding[] = [];
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, "");
    const n = i + 1;
    if (line.startsWith(MAGIC)) {
      if (i >= block) {
        const message = `#SBATCH after the first command is ignored, as Slurm ignores it: ${line.slice(MAGIC.length).trim()}`;
        out.push({ line: n, severity: "warn", code: "LateDirective", message });
      }
      return;
    }
    const foreign = /^#(PBS|BSUB)\b/.exec(line)?.[1];
    if (foreign !== undefined && i < block) {
      const message = pbsIgnored
        ? `#${foreign} directive skipped (--ignore-pbs), as Slurm does`
        : `${FOREIGN_TEXT[foreign] ?? ""} (Slurm translates them into options; convert them to #SBATCH)`;
      out.push({ line: n, severity: pbsIgnored ? "info" : "warn", code: "ForeignDirective", message });
      return;
    }
    if (/^\s*#\s*SBATCH/i.test(line) && !line.startsWith(MAGIC)) {
      const message = "not a directive (it must start the line with exactly \"#SBATCH\"): neither Slurm nor Spur reads it";
      out.push({ line: n, severity: "info", code: "NotADirective", message });
    }
  });
  return out;
}

/** A refusal of the script as a whole (Slurm's own checks: empty, no "#!", DOS line breaks). */
function scriptFinding(e: SpurError): Finding {
  const own = ["NoShebang", "EmptyScript", "DosLineBreaks"].includes(e.code);
  const message = e.message.replace(/\n/g, " ").replace(/ {2,}/g, " ");
  return own
    ? { line: 1, severity: "error", code: e.code, message: `${message} (Slurm refuses it too)` }
    : { line: 0, severity: "error", code: "Script", message };
}

/**
 * The whole-script run of sbatch's own flow: whatever it refuses or warns about that the
 * per-line pass did not already say (e.g. --mem together with --mem-per-cpu) becomes a
 * script-level finding, so the verdict can never be milder than sbatch's.
 */
function wholeScript(text: string, path: string, ctx: SubmitContext, have: readonly Finding[]): Finding[] {
  const r = sbatchRequest(ctx, [], { text, from: "file", path, args: [] });
  if (!r.ok) return have.some((f) => f.severity === "error") ? [] : [scriptFinding(r.error)];
  return r.value.warnings
    .filter((w) => !have.some((f) => f.message.startsWith(w)))
    .map((message) => ({ line: 0, severity: "warn" as const, code: "Script", message }));
}

function verdictOf(findings: readonly Finding[]): Verdict {
  if (findings.some((f) => f.severity === "error")) return "fails";
  return findings.some((f) => f.severity === "warn") ? "warnings" : "unchanged";
}

/** Check one script. */
export function checkOne(path: string, text: string, opts: CheckOptions = {}): ScriptReport {
  const ctx = context(opts.now ?? 0);
  const findings: Finding[] = [];
  const pre = checkScript(text);
  if (!pre.ok) findings.push(scriptFinding(pre.error));
  const lines = text === "" ? [] : text.split("\n");
  const { block, words } = splitBlock(lines);
  const script: BatchScript = { text, from: "file", path, args: [] };
  const scan = directiveFindings(words, ctx, script);
  findings.push(...scan.findings);
  findings.push(...lineFindings(lines, block, scan.ignorePbs));
  if (pre.ok) findings.push(...wholeScript(text, path, ctx, findings));
  findings.sort((a, b) => a.line - b.line);
  return { path, verdict: verdictOf(findings), findings };
}

/** Check a set of scripts (in the order given) and count the verdicts. */
export function checkScripts(files: readonly { path: string; text: string }[], opts: CheckOptions = {}): CheckReport {
  const scripts = files.map((f) => checkOne(f.path, f.text, opts));
  const count = (v: Verdict): number => scripts.filter((s) => s.verdict === v).length;
  return {
    scripts,
    summary: { total: scripts.length, unchanged: count("unchanged"), warnings: count("warnings"), fails: count("fails") },
  };
}
