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
  text.split("\n").forEach((raw, i) => {
    const l = raw.replace(/\r$/, "");
    if (pending === "") start = i + 1;
    if (l.endsWith("\\")) {
      pending += `${l.slice(0, -1)} `;
      return;
    }
    out.push({ text: pending + l, line: start });
    pending = "";
  });
  if (pending !== "") out.push({ text: pending, line: start });
  return out;
}

function stripComment(line: string): string {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '"') quoted = !quoted;
    if (line[i] === "#" && !quoted) return line.slice(0, i);
  }
  return line;
}

function splitPairs(body: string): [string, string][] | string {
  const pairs: [string, string][] = [];
  const re = /([A-Za-z][\w/]*)=("([^"]*)"|\S*)/g;
  for (const m of body.matchAll(re)) {
    pairs.push([m[1] ?? "", m[3] ?? m[2] ?? ""]);
  }
  const leftover = body.replace(re, "").trim();
  if (leftover !== "") return `cannot parse "${leftover}"`;
  return pairs;
}
