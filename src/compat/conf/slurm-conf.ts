/**
 * @module compat/conf/slurm-conf
 * Reads configuration text in slurm.conf syntax: `Key=Value` pairs separated by
 * white space, `#` comments, `\` line continuations, quoted values, keys case-
 * insensitive. spur.conf uses the same syntax so that a site's slurm.conf lines
 * (NodeName=, PartitionName=, DefMemPerCPU=, ...) read unchanged.
 */
import { err, ok, type Result } from "../../lib/result.ts";

export interface ConfRecord {
  /** Pairs in order, keys as written. */
  pairs: [string, string][];
  line: number;
}

export interface ParsedConf {
  globals: Map<string, string>;
  nodes: ConfRecord[];
  partitions: ConfRecord[];
  /**
   * Every SlurmctldHost= (or ControlMachine=) value in file order: Slurm's primary then its
   * backups; Spur reads several as the replicated controllers. `globals` keeps the first.
   */
  slurmctldHosts?: string[];
}

/** Case-insensitive lookup in a record. */
export function confGet(rec: ConfRecord, key: string): string | undefined {
  const lower = key.toLowerCase();
  for (const [k, v] of rec.pairs) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** A NodeName=/PartitionName= record line (what a client skips: it needs the globals only). */
const RECORD_LINE = /^(nodename|partitionname)=/i;

/**
 * `globalsOnly`: leave NodeName= and PartitionName= lines unparsed (`nodes` and `partitions`
 * stay empty, a malformed record line is no error): what a user command needs, which reads
 * spur.conf on every call and a site's file may list thousands of nodes.
 */
export function parseConf(text: string, opts: { globalsOnly?: boolean } = {}): Result<ParsedConf> {
  if (opts.globalsOnly === true && !NOT_ONE_LINE_EACH.test(text)) {
    // The record lines go in one native pass; the few lines left are parsed as always. Exact
    // because, without continuations, a removed line is one the loop below would skip whole.
    // A failure is parsed again from the whole text for its line number.
    const rest = text.replace(RECORD_LINES, "");
    const parsed = parseConfLines(rest, opts);
    if (rest === text || parsed.ok) return parsed;
  }
  return parseConfLines(text, opts);
}

/**
 * Physical lines that start (after blanks) a NodeName=/PartitionName= record, with their newline.
 * A site's spur.conf may hold thousands, and every user command reads it: the loop below over a
 * 10k-node file took 12-16 ms in a fresh compiled process, this pass 0.6.
 */
const RECORD_LINES = /^[^\S\n]*(?:nodename|partitionname)=[^\n]*\n?/gim;
/**
 * What makes a logical line span physical ones (a backslash at the end), or makes `^` above match
 * where the loop sees no line start (a lone CR, U+2028, U+2029): the fast path is not taken.
 */
const NOT_ONE_LINE_EACH = /\\\r?$|\r(?!\n)|[\u2028\u2029]/m;

/** parseConf's definition, one logical line at a time (exported for the fast path's test). */
export function parseConfLines(text: string, opts: { globalsOnly?: boolean } = {}): Result<ParsedConf> {
  const conf: ParsedConf = { globals: new Map(), nodes: [], partitions: [] };
  const lines = joinContinuations(text);
  for (const { text: raw, line } of lines) {
    const body = stripComment(raw).trim();
    if (body === "") continue;
    if (opts.globalsOnly === true && RECORD_LINE.test(body)) continue;
    const pairs = splitPairs(body);
    if (typeof pairs === "string") return err("BadConfig", `spur.conf line ${line}: ${pairs}`);
    const first = pairs[0];
    if (first === undefined) continue;
    const key = first[0].toLowerCase();
    if (key === "nodename") conf.nodes.push({ pairs, line });
    else if (key === "partitionname") conf.partitions.push({ pairs, line });
    else {
      for (const [k, v] of pairs) {
        const lower = k.toLowerCase();
        if (lower === "slurmctldhost" || lower === "controlmachine") {
          (conf.slurmctldHosts ??= []).push(v);
          if (conf.globals.has(lower)) continue; // the first line is the primary
        }
        conf.globals.set(lower, v);
      }
    }
  }
  return ok(conf);
}

/** Logical lines: `\` continuations joined, CRLF endings tolerated, with the first line's number. */
export function joinContinuations(text: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let pending = "";
  let start = 1;
  // a plain loop and endsWith: no callback or RegExp run per line (see stripComment)
  const rows = text.split("\n");
  for (let i = 0; i < rows.length; i++) {
    const raw = rows[i] as string;
    const l = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (pending === "") start = i + 1;
    if (l.endsWith("\\")) {
      pending += `${l.slice(0, -1)} `;
      continue;
    }
    out.push({ text: pending + l, line: start });
    pending = "";
  }
  if (pending !== "") out.push({ text: pending, line: start });
  return out;
}

/**
 * The line up to its first `#` outside double quotes. Found with indexOf, not a loop over
 * every character: in a CLI's short life a per-character loop is what gets JIT-compiled, and
 * the first compilation sets up the JIT (issue 16: milliseconds of every sbatch call).
 */
export function stripComment(line: string): string {
  let quoted = false;
  let from = 0;
  for (;;) {
    const hash = line.indexOf("#", from);
    if (hash < 0) return line;
    for (let q = line.indexOf('"', from); q >= 0 && q < hash; q = line.indexOf('"', q + 1)) quoted = !quoted;
    if (!quoted) return line.slice(0, hash);
    from = hash + 1;
  }
}

/**
 * `Key=Value` pairs of one logical line, or what could not be read. A plain scan handles the
 * usual line (every command reads spur.conf, a site's file may have thousands of lines);
 * anything unusual goes to the regular expression below, whose results (pairs and error text)
 * are the definition.
 */
function splitPairs(body: string): [string, string][] | string {
  return scanPairs(body) ?? splitPairsRe(body);
}

/**
 * One `Key=Value` or `Key="Value"` token after white space (ASCII only: the caller checks), its
 * value ending at white space or the end: a quoted value followed by anything else, or an
 * unclosed quote, does not match. A sticky expression rather than a loop over characters (see
 * stripComment: nothing here gets hot enough to be JIT-compiled).
 */
const PAIR = /\s*([A-Za-z][A-Za-z0-9_/]*)=(?:"([^"]*)"|([^"\s]\S*)?)(?=\s|$)/y;

/** Whitespace-separated `Key=Value` / `Key="Value"` tokens; undefined for anything else (exported for its test). */
export function scanPairs(body: string): [string, string][] | undefined {
  // Beyond ASCII (Unicode blanks count as white space for the regex): the regex decides.
  if (!/^[\x00-\x7f]*$/.test(body)) return undefined;
  const pairs: [string, string][] = [];
  PAIR.lastIndex = 0;
  for (;;) {
    const at = PAIR.lastIndex;
    const m = PAIR.exec(body);
    if (m === null) return body.slice(at).trim() === "" ? pairs : undefined;
    pairs.push([m[1] as string, m[2] ?? m[3] ?? ""]);
  }
}

/** The definition of a line's pairs (exported for the scan's test). */
export function splitPairsRe(body: string): [string, string][] | string {
  const pairs: [string, string][] = [];
  const re = /([A-Za-z][\w/]*)=("([^"]*)"|\S*)/g;
  for (const m of body.matchAll(re)) {
    pairs.push([m[1] ?? "", m[3] ?? m[2] ?? ""]);
  }
  const leftover = body.replace(re, "").trim();
  if (leftover !== "") return `cannot parse "${leftover}"`;
  return pairs;
}
