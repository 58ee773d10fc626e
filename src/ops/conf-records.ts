/**
 * @module ops/conf-records
 * slurm.conf-syntax files (slurm.conf, gres.conf, topology.conf, cgroup.conf) as a list of
 * records, one per logical line, keys as written and in order, each with its line number,
 * so that an importer can say where every setting it drops came from. The syntax itself is
 * compat/conf/slurm-conf.ts's; this only keeps what parseConf folds into one map.
 */
import { joinContinuations, parseConf } from "../compat/conf/slurm-conf.ts";
import { err, ok, type Result } from "../lib/result.ts";

/** A setting an importer could not carry over (or carried over changed), and why. */
export interface ImportNote {
  file: string;
  /** 1-based line in `file`; 0 when the note is about the file as a whole. */
  line: number;
  key: string;
  value: string;
  kind: "dropped" | "changed" | "advice";
  reason: string;
}

export interface Rec {
  pairs: [string, string][];
  /** 1-based line of the record's first physical line. */
  line: number;
  /** Keys (lower case) this record took from a `DEFAULT` line, and that line. */
  inherited?: ReadonlyMap<string, number>;
}

/** Where a key of a record was written: its own line, or the DEFAULT line it came from. */
export const lineOf = (rec: Rec, key: string): number => rec.inherited?.get(key.toLowerCase()) ?? rec.line;

const noteId = (n: ImportNote): string => JSON.stringify([n.file, n.line, n.key, n.value, n.kind, n.reason]);

/** Notes in file order (as listed), then by line; a setting inherited by many records is noted once. */
export function tidyNotes(notes: readonly ImportNote[], fileOrder: readonly string[]): ImportNote[] {
  const seen = new Set<string>();
  const unique = notes.filter((n) => {
    const id = noteId(n);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  const rank = (f: string): number => (fileOrder.includes(f) ? fileOrder.indexOf(f) : fileOrder.length);
  return unique
    .map((n, i) => ({ n, i }))
    .sort((a, b) => rank(a.n.file) - rank(b.n.file) || a.n.line - b.n.line || a.i - b.i)
    .map((x) => x.n);
}

/** Case-insensitive lookup. */
export function get(rec: Rec, key: string): string | undefined {
  const lower = key.toLowerCase();
  for (const [k, v] of rec.pairs) if (k.toLowerCase() === lower) return v;
  return undefined;
}

export const firstKey = (rec: Rec): string => (rec.pairs[0]?.[0] ?? "").toLowerCase();
export const firstValue = (rec: Rec): string => rec.pairs[0]?.[1] ?? "";

const logicalLines = joinContinuations;

/**
 * Every non-empty logical line of a file as a record. Each line is read by parseConf under a
 * NodeName= prefix (which makes parseConf keep the pairs in order and as written), and the
 * prefix pair is dropped again. Slurm's `Include` lines are returned like any other record.
 */
export function readRecords(text: string, file: string): Result<Rec[]> {
  const recs: Rec[] = [];
  for (const { text: body, line } of logicalLines(text)) {
    const include = /^\s*include\s+(\S+)/i.exec(body);
    if (include !== null) {
      recs.push({ pairs: [["Include", include[1] ?? ""]], line });
      continue;
    }
    const parsed = parseConf(`NodeName=_ ${body}`);
    if (!parsed.ok) {
      const why = parsed.error.message.replace(/^spur\.conf line \d+: /, "");
      return err("BadConfig", `${file} line ${line}: ${why}`);
    }
    const pairs = parsed.value.nodes[0]?.pairs.slice(1) ?? [];
    if (pairs.length > 0) recs.push({ pairs, line });
  }
  return ok(recs);
}

/**
 * Slurm's `NodeName=DEFAULT ...` / `PartitionName=DEFAULT ...` lines: their settings apply
 * to every later record of that kind that does not set the key itself. Returns the real
 * records with the defaults folded in (the record's own pairs first).
 */
export function foldDefaults(recs: readonly Rec[]): Rec[] {
  let defaults: { key: string; value: string; line: number }[] = [];
  const out: Rec[] = [];
  for (const rec of recs) {
    if (firstValue(rec).toUpperCase() === "DEFAULT") {
      const own = new Set(rec.pairs.slice(1).map(([k]) => k.toLowerCase()));
      const added = rec.pairs.slice(1).map(([key, value]) => ({ key, value, line: rec.line }));
      defaults = [...defaults.filter((d) => !own.has(d.key.toLowerCase())), ...added];
      continue;
    }
    const have = new Set(rec.pairs.map(([k]) => k.toLowerCase()));
    const taken = defaults.filter((d) => !have.has(d.key.toLowerCase()));
    out.push({
      pairs: [...rec.pairs, ...taken.map((d): [string, string] => [d.key, d.value])],
      line: rec.line,
      inherited: new Map(taken.map((d) => [d.key.toLowerCase(), d.line])),
    });
  }
  return out;
}

/**
 * How many items a bracket expression names: "/dev/nvidia[0-3]" → 4, "a,b" → 2,
 * "x[1-2,5]y[0-1]" → 6. Used to count GPU device files in gres.conf.
 */
export function countItems(expr: string): number {
  if (expr === "") return 0;
  let total = 0;
  for (const part of splitTop(expr)) {
    let n = 1;
    for (const m of part.matchAll(/\[([^\]]*)\]/g)) {
      const inner = m[1] ?? "";
      n *= inner.split(",").reduce((s, r) => {
        const [a, b] = r.split("-");
        return s + (b === undefined ? 1 : Math.max(0, Number(b) - Number(a) + 1));
      }, 0);
    }
    total += n;
  }
  return total;
}

/** Split on commas outside brackets and parentheses. */
export function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of text) {
    if (ch === "[" || ch === "(") depth++;
    if (ch === "]" || ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  if (cur !== "") out.push(cur);
  return out;
}
