/**
 * @module hostlist
 * Slurm hostlist expressions ("n[1-3,5],gpu[01-02]"): expansion to names and
 * compression back, with Slurm's zero-padding, ordering and duplicate rules
 * (facts: shared/slurm-surface/hostlist.md). Pure; also the text that
 * `scontrol show hostnames|hostlist|hostlistsorted` prints.
 */
import { err, ok, type Result } from "../lib/result.ts";

/** Most hosts one bracket item ("LO-HI") may produce, as in Slurm. */
const RANGE_HOSTS_MAX = 65536;
/** Safety cap on a whole expansion (Slurm has no single documented total). */
const EXPANSION_HOSTS_MAX = 1 << 20;
/** Longer digit tails are not treated as host numbers (beyond exact doubles). */
const HOST_DIGITS_MAX = 15;

/** One run of hosts `prefix<lo..hi>` printed at `width`, or a plain name. */
interface HostRange {
  prefix: string;
  lo: number;
  hi: number;
  width: number;
  /** A name without a numeric tail ("node", "n1-ib"): never joins a range. */
  single: boolean;
}

const badHostlist = (expr: string): Result<never> =>
  err("InvalidHostlist", `Invalid hostlist: ${expr}`);

// ---------------------------------------------------------------- expansion

/** Split at comma/space/tab/newline outside brackets; empty tokens dropped. */
function splitTokens(expr: string): string[] | undefined {
  const tokens: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of expr) {
    if (ch === "[") depth++;
    if (ch === "]") depth--;
    if (depth < 0 || depth > 1) return undefined;
    if (depth === 0 && (ch === "," || ch === " " || ch === "\t" || ch === "\n")) {
      if (current !== "") tokens.push(current);
      current = "";
    } else current += ch;
  }
  if (depth !== 0) return undefined;
  if (current !== "") tokens.push(current);
  return tokens;
}

/** Expand the inside of one bracket ("1-3,05") to zero-padded number strings. */
function expandBracket(body: string): string[] | undefined {
  const out: string[] = [];
  for (const item of body.split(",")) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(item);
    if (!m || m[1] === undefined) return undefined;
    const loText = m[1];
    const lo = Number(loText);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (hi < lo || hi - lo + 1 > RANGE_HOSTS_MAX) return undefined;
    for (let n = lo; n <= hi; n++) out.push(String(n).padStart(loText.length, "0"));
  }
  return out;
}

/** Expand one token; several brackets form a product, earliest slowest. */
function expandToken(token: string): string[] | undefined {
  let names = [""];
  let rest = token;
  while (rest !== "") {
    const open = rest.indexOf("[");
    if (open < 0) {
      if (rest.includes("]")) return undefined;
      names = names.map((n) => n + rest);
      break;
    }
    const close = rest.indexOf("]", open);
    const literal = rest.slice(0, open);
    if (close < 0 || literal.includes("]")) return undefined;
    const values = expandBracket(rest.slice(open + 1, close));
    if (!values) return undefined;
    if (names.length * values.length > EXPANSION_HOSTS_MAX) return undefined;
    names = names.flatMap((n) => values.map((v) => n + literal + v));
    rest = rest.slice(close + 1);
  }
  return names;
}

/**
 * Expand a hostlist expression to host names in input order; ranges ascend,
 * zero padding follows the width of each item's low bound, duplicates stay.
 * "" → []. Malformed input ("n[1-", "n[3-1]", "n[a]") → InvalidHostlist.
 */
export function expandHostlist(expr: string): Result<string[]> {
  const tokens = splitTokens(expr);
  if (!tokens) return badHostlist(expr);
  const names: string[] = [];
  for (const token of tokens) {
    const expanded = expandToken(token);
    if (!expanded || names.length + expanded.length > EXPANSION_HOSTS_MAX) {
      return badHostlist(expr);
    }
    for (const n of expanded) names.push(n);
  }
  return ok(names);
}

// -------------------------------------------------------------- compression

/**
 * Split a host name into prefix and numeric tail (width = tail digit count): the tail is the
 * longest run of ASCII digits that ends the name. Scanned by hand: lists of 10k names are
 * compressed per listing (sinfo, squeue), and the regular expression was most of that.
 */
function parseHost(name: string): HostRange {
  let at = name.length;
  while (at > 0) {
    const c = name.charCodeAt(at - 1);
    if (c < 48 || c > 57) break;
    at--;
  }
  const width = name.length - at;
  if (width === 0 || width > HOST_DIGITS_MAX) return { prefix: name, lo: 0, hi: 0, width: 0, single: true };
  const n = Number(name.slice(at));
  return { prefix: name.slice(0, at), lo: n, hi: n, width, single: false };
}

/** Leading zeros `n` gets when printed at `width`. */
const padOf = (n: number, width: number): number => Math.max(0, width - String(n).length);

/**
 * Slurm's width equivalence: the numbers may share a range when one of them
 * can take the other's width without its zero padding changing. Returns the
 * common width, or undefined when they cannot share.
 */
function commonWidth(n: number, wn: number, m: number, wm: number): number | undefined {
  if (wn === wm) return wn;
  const nKeeps = padOf(n, wn) === padOf(n, wm);
  const mKeeps = padOf(m, wm) === padOf(m, wn);
  if (!nKeeps && !mKeeps) return undefined;
  return nKeeps ? wm : wn;
}

/** Append a host, joining the last range only when it continues it. */
function pushHost(ranges: HostRange[], host: HostRange): void {
  const tail = ranges[ranges.length - 1];
  if (tail && !tail.single && !host.single && tail.prefix === host.prefix && host.lo === tail.hi + 1) {
    const width = commonWidth(tail.lo, tail.width, host.lo, host.width);
    if (width !== undefined) {
      tail.hi = host.lo;
      tail.width = width;
      return;
    }
  }
  ranges.push({ ...host });
}

const numText = (n: number, width: number): string => String(n).padStart(width, "0");

/** Print ranges; neighbours with one prefix share a bracket, singles go bare. */
function printRanges(ranges: HostRange[]): string {
  const parts: string[] = [];
  let i = 0;
  while (i < ranges.length) {
    const first = ranges[i] as HostRange;
    if (first.single) {
      parts.push(first.prefix);
      i++;
      continue;
    }
    const group: HostRange[] = [];
    while (i < ranges.length) {
      const r = ranges[i] as HostRange;
      if (r.single || r.prefix !== first.prefix) break;
      group.push(r);
      i++;
    }
    const items = group.map((r) =>
      r.lo === r.hi ? numText(r.lo, r.width) : `${numText(r.lo, r.width)}-${numText(r.hi, r.width)}`,
    );
    const bare = group.length === 1 && first.lo === first.hi;
    parts.push(bare ? first.prefix + (items[0] ?? "") : `${first.prefix}[${items.join(",")}]`);
  }
  return parts.join(",");
}

/**
 * Compress names the way `scontrol show hostlist` does: NO sorting and NO
 * de-duplication; a host joins the previous range only when it is the next
 * number with the same prefix and a compatible width.
 * n1,n2,n3,n5 → "n[1-3,5]"; n3,n1,n2,n2 → "n[3,1-2,2]"; [] → "".
 */
export function compressHostlist(names: string[]): string {
  const ranges: HostRange[] = [];
  for (const name of names) pushHost(ranges, parseHost(name));
  return printRanges(ranges);
}

// ------------------------------------------------------------------ sorting

/** Natural string order (digit runs compare by value), like strnatcmp. */
export function naturalCompare(a: string, b: string): number {
  // Sorting a cluster's names compares mostly equal prefixes ("gpu" with "gpu"): no splitting then.
  if (a === b) return 0;
  const re = /(\d+|\D+)/g;
  const pa = a.match(re) ?? [];
  const pb = b.match(re) ?? [];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i] as string;
    const y = pb[i] as string;
    if (x === y) continue;
    const xd = /^\d/.test(x);
    const yd = /^\d/.test(y);
    if (xd && yd) {
      const dx = Number(x) - Number(y);
      if (dx !== 0) return dx < 0 ? -1 : 1;
      return x.length - y.length;
    }
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

/**
 * Host order used by Slurm's hostlist sort: prefix in natural order, a plain
 * name before numbered ones, then numbers whose widths are compatible by value
 * and otherwise the narrower first (so x2 sorts before x01). For names this
 * is the same as ordering by (digit count, value).
 */
function compareHosts(a: HostRange, b: HostRange): number {
  const byPrefix = naturalCompare(a.prefix, b.prefix);
  if (byPrefix !== 0) return byPrefix;
  if (a.single !== b.single) return a.single ? -1 : 1;
  if (a.single) return 0;
  if (a.width !== b.width) return a.width - b.width;
  return a.lo - b.lo;
}

/** Each name parsed once, in Slurm's sorted hostlist order (duplicates kept; stable). */
function sortedHosts(names: string[]): { name: string; index: number; host: HostRange }[] {
  const hosts = names.map((name, index) => ({ name, index, host: parseHost(name) }));
  hosts.sort((x, y) => compareHosts(x.host, y.host) || x.index - y.index);
  return hosts;
}

/** The names in Slurm's sorted hostlist order (duplicates kept; stable). */
export function sortHostnames(names: string[]): string[] {
  return sortedHosts(names).map((h) => h.name);
}

/**
 * `scontrol show hostlistsorted`: sort, then compress; duplicates are kept,
 * so n3,n1,n2,n2 → "n[1-2,2-3]" and n[1-3],n[2-5] → "n[1-2,2-3,3-5]".
 * Implemented as sort-hosts-then-push, which reproduces every verified row
 * of hostlist.md (Slurm itself sorts ranges, then coalesces them).
 */
export function hostlistSorted(names: string[]): string {
  return compressHostlist(sortHostnames(names));
}

/** Sorted and de-duplicated names (hostlist_uniq; sbatch -w counting). */
export function uniqHostnames(names: string[]): string[] {
  const sorted = sortHostnames(names);
  return sorted.filter((n, i) => i === 0 || sorted[i - 1] !== n);
}

/**
 * Sorted, de-duplicated compression: what squeue %N/%R, SLURM_JOB_NODELIST
 * and other "node list" outputs show (they go through a hostset).
 * n3,n1,n2,n2 → "n[1-3]".
 */
export function hostlistUniq(names: string[]): string {
  // compressHostlist(uniqHostnames(names)), each name parsed once
  const ranges: HostRange[] = [];
  let last: string | undefined;
  for (const h of sortedHosts(names)) {
    if (h.name === last) continue;
    last = h.name;
    pushHost(ranges, h.host);
  }
  return printRanges(ranges);
}

/** Number of hosts an expression names (duplicates counted), or an error. */
export function hostlistCount(expr: string): Result<number> {
  const names = expandHostlist(expr);
  return names.ok ? ok(names.value.length) : names;
}

// --------------------------------------------------- scontrol show helpers

/** `scontrol show hostnames EXPR`: one name per line (empty list → ""). */
export function scontrolShowHostnames(expr: string): Result<string> {
  const names = expandHostlist(expr);
  if (!names.ok) return names;
  return ok(names.value.map((n) => `${n}\n`).join(""));
}

/** `scontrol show hostlist EXPR`: unsorted compression plus newline. */
export function scontrolShowHostlist(expr: string): Result<string> {
  const names = expandHostlist(expr);
  if (!names.ok) return names;
  return ok(`${compressHostlist(names.value)}\n`);
}

/** `scontrol show hostlistsorted EXPR`: sorted compression plus newline. */
export function scontrolShowHostlistSorted(expr: string): Result<string> {
  const names = expandHostlist(expr);
  if (!names.ok) return names;
  return ok(`${hostlistSorted(names.value)}\n`);
}
