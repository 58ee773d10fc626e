/**
 * @module format/squeue-sort
 * squeue's job order: first by expected start time descending, then one
 * stable sort per key of the sort spec from the last key to the first (what
 * Slurm does with glibc's merge-sorting qsort), so ties keep the controller's
 * order. Default spec "P,t,-p"; --start uses "S". Table-driven by letter.
 * Keys are computed once per record, and the passes run as one sort on the
 * combined key (the same order: stable passes = lexicographic keys).
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { expandHostlist, naturalCompare } from "../hostlist.ts";
import { type Job, jobTimeUsed, stateCompactText, stateLongText, timeLeft } from "./job-values.ts";

/** A record being sorted: the job and its partition-tier priority (-P). */
export interface SortItem {
  job: Job;
  partPrio: number;
}

type KeyValue = number | string;

/** One comparable part of a sort letter, computed once per record. */
interface SubKey {
  get: (job: Job, now: number, item: SortItem) => KeyValue;
  /** Compare with naturalCompare (host names) instead of < and >. */
  natural?: boolean;
  /** A start-time key: which values mean "no start time" (see orderByStart). */
  unset?: (v: KeyValue) => boolean;
}

const INFINITE = 0xffffffff;
const cmp = (a: KeyValue, b: KeyValue): number => (a < b ? -1 : a > b ? 1 : 0);
const num = (get: (j: Job, now: number) => number): SubKey[] => [{ get }];
const str = (get: (j: Job) => string): SubKey[] => [{ get }];
const same: SubKey[] = [];

/**
 * The "S" key (--start's order): an unknown start sorts after every known
 * one and a pending job's past estimate counts as now. Golden 052 shows the
 * job with a begin time before those without an estimate.
 */
function startKey(job: Job, now: number): number {
  const start = Math.floor(job.startTime);
  if (start === 0) return Number.POSITIVE_INFINITY;
  if (job.state.toUpperCase() === "PENDING" && start < now) return now;
  return start;
}

/** Id key: array records sort by (array id, task id); others by job id. */
const isArray = (job: Job): boolean => job.arrayJobId !== 0 && (job.arrayTaskId >= 0 || job.arrayTaskStr !== "");
const byId: SubKey[] = [
  { get: (job) => (isArray(job) ? job.arrayJobId : job.jobId) },
  { get: (job) => (isArray(job) && job.arrayTaskStr === "" ? job.arrayTaskId : INFINITE - 1) },
];

function firstHost(nodelist: string): string {
  const names = expandHostlist(nodelist);
  if (!names.ok) return nodelist;
  return [...names.value].sort(naturalCompare)[0] ?? "";
}

const byPriority: SubKey[] = [{ get: (_job, _now, item) => item.partPrio }, { get: (job) => job.priority }];

/** Sort letter → its key parts (ascending). Letters Slurm accepts but ignores have none. */
const SORT_KEYS: Readonly<Record<string, readonly SubKey[]>> = {
  B: str((j) => j.batchHost),
  C: num((j) => j.numCpus),
  D: num((j) => j.numNodes),
  G: num((j) => j.gid),
  H: same,
  I: same,
  J: same,
  L: num((j, now) => timeLeft(j, now) ?? INFINITE),
  M: num((j, now) => jobTimeUsed(j, now)),
  N: [{ get: (job) => firstHost(job.nodelist), natural: true }],
  O: same,
  P: str((j) => j.partition),
  Q: byPriority,
  S: [{ get: startKey, unset: (v) => v === Number.POSITIVE_INFINITY }],
  T: str(stateLongText),
  U: num((j) => j.uid),
  V: num((j) => j.submitTime),
  c: same,
  d: same,
  e: num((j) => j.endTime),
  f: same,
  g: str((j) => j.group),
  h: same,
  i: byId,
  j: str((j) => j.name),
  l: num((j) => j.timeLimitMin ?? INFINITE),
  m: num((j) => j.memPerNodeMib || j.memPerCpuMib),
  n: same,
  p: byPriority,
  t: str(stateCompactText),
  u: str((j) => j.user),
  v: str((j) => j.reservation),
  z: same,
};

/** One parsed sort key. */
interface SortKey {
  parts: readonly SubKey[];
  reverse: boolean;
}

const clusterKey: SubKey[] = []; // one cluster: all records compare equal

/** The spec's letters ("cluster" as one), each with whether a "-" reverses it, in the spec's order. */
function sortLetters(spec: string): { ch: string; reverse: boolean }[] {
  const out: { ch: string; reverse: boolean }[] = [];
  for (let i = 0; i < spec.length; i++) {
    const ch = spec[i] ?? "";
    if (ch === "," || ch === "+" || ch === "-") continue;
    const reverse = i > 0 && spec[i - 1] === "-";
    if (spec.slice(i, i + 7).toLowerCase() === "cluster") {
      out.push({ ch: "cluster", reverse });
      i += 6;
    } else out.push({ ch, reverse });
  }
  return out;
}

/**
 * Parse a sort spec ("P,t,-p", "-S", "cluster,i"): letters with an optional
 * leading "+"/"-"; "cluster" sorts by cluster name. Error text as Slurm's, which
 * reads the spec from its end: of two bad letters it names the last ("xo": o).
 */
export function parseJobSort(spec: string): Result<SortKey[]> {
  const letters = sortLetters(spec);
  for (let i = letters.length - 1; i >= 0; i--) {
    const ch = (letters[i] as { ch: string }).ch;
    if (ch !== "cluster" && ch !== "b" && SORT_KEYS[ch] === undefined) return err("InvalidSort", `Invalid sort specification: ${ch}`, 1);
  }
  const keys: SortKey[] = [];
  for (const { ch, reverse } of letters) {
    if (ch === "b") continue; // vestigial gres sort: Slurm only says so (sortNotes)
    keys.push({ parts: ch === "cluster" ? clusterKey : (SORT_KEYS[ch] as readonly SubKey[]), reverse });
  }
  return ok(keys);
}

/**
 * What squeue says of a sort spec without failing: "b" (a gres sort it dropped) is named on
 * stderr once for each, read from the end as the errors are, up to the first bad letter.
 */
export function sortNotes(spec: string): string {
  let text = "";
  const letters = sortLetters(spec);
  for (let i = letters.length - 1; i >= 0; i--) {
    const ch = (letters[i] as { ch: string }).ch;
    if (ch === "b") text += "squeue: Invalid sort specification: b\n";
    else if (ch !== "cluster" && SORT_KEYS[ch] === undefined) break;
  }
  return text;
}

/** The distinct values of a key in ascending order (native sorts where the type allows). */
function ascendingDistinct(values: readonly KeyValue[], natural: boolean): KeyValue[] {
  const distinct = [...new Set(values)];
  if (natural) return distinct.sort((a, b) => naturalCompare(String(a), String(b)));
  let numbers = 0;
  let strings = 0;
  for (const v of distinct) {
    if (typeof v === "number") numbers++;
    else strings++;
  }
  if (numbers === distinct.length) return Array.from(Float64Array.from(distinct as number[]).sort());
  if (strings === distinct.length) return distinct.sort();
  return distinct.sort(cmp);
}

interface Ranked {
  rank: Uint32Array;
  size: number;
}

/** Ranks of an all-number key without NaN: a native sort, then a binary search per record. */
function rankNumbers(values: readonly KeyValue[], reverse: boolean): Ranked | undefined {
  const n = values.length;
  const sorted = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const v = values[k];
    if (typeof v !== "number" || Number.isNaN(v)) return undefined;
    sorted[k] = v;
  }
  sorted.sort();
  let size = 0;
  for (let k = 0; k < n; k++) {
    const v = sorted[k] as number;
    if (size === 0 || v !== sorted[size - 1]) sorted[size++] = v;
  }
  const top = size - 1;
  const rank = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    const v = values[k] as number;
    let lo = 0;
    let hi = top;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((sorted[mid] as number) < v) lo = mid + 1;
      else hi = mid;
    }
    rank[k] = reverse ? top - lo : lo;
  }
  return { rank, size };
}

/** Per-record ranks of one key (0 = first in ascending order); undefined when all are equal. */
function rankKey(values: readonly KeyValue[], natural: boolean, reverse: boolean): Ranked | undefined {
  const n = values.length;
  const first = values[0];
  let i = 1;
  while (i < n && values[i] === first) i++;
  if (i >= n) return undefined;
  const numeric = natural ? undefined : rankNumbers(values, reverse);
  if (numeric !== undefined) return numeric;
  const distinct = ascendingDistinct(values, natural);
  const rankOf = new Map<KeyValue, number>();
  let top = 0;
  for (let k = 0; k < distinct.length; k++) {
    const v = distinct[k] as KeyValue;
    if (k > 0) {
      const prev = distinct[k - 1] as KeyValue;
      if ((natural ? naturalCompare(String(prev), String(v)) : cmp(prev, v)) !== 0) top++;
    }
    rankOf.set(v, top);
  }
  const rank = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    const r = rankOf.get(values[k] as KeyValue) ?? 0;
    rank[k] = reverse ? top - r : r;
  }
  return { rank, size: top + 1 };
}

/** One stable counting-sort pass of `order` by `rank`. */
function stablePass(order: Uint32Array, rank: Uint32Array, size: number): Uint32Array {
  const n = order.length;
  const start = new Uint32Array(size + 1);
  for (let k = 0; k < n; k++) {
    const slot = (rank[k] as number) + 1;
    start[slot] = (start[slot] as number) + 1;
  }
  for (let k = 1; k <= size; k++) start[k] = (start[k] as number) + (start[k - 1] as number);
  const next = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    const i = order[k] as number;
    const slot = rank[i] as number;
    const at = start[slot] as number;
    next[at] = i;
    start[slot] = at + 1;
  }
  return next;
}

interface Pass {
  get: SubKey["get"];
  natural: boolean;
  reverse: boolean;
  unset?: SubKey["unset"];
}

const startPass: Pass = { get: (job) => job.startTime, natural: false, reverse: true, unset: (v) => !((v as number) > 0) };

/**
 * One start-time pass as 22.05 sorts it: records with a start time by it (stable, "-" reverses),
 * then those without one, always last and in reverse of the order they came in. Its start-time
 * comparison puts an unset time after any other in either direction and never calls two unset
 * times equal, so its merge sort reverses them on every such pass (oracle: held or dependent jobs
 * of equal priority list newest first, 12 11 10, and a pending het job +2 +1 +0, while equal set
 * times keep their order, --begin'd 23 24 25 and a running het job +0 +1 +2; `-S S` reverses
 * twice, 21 22 26+0 26+1, and so does --start: golden 052).
 */
function orderByStart(order: Uint32Array, values: readonly KeyValue[], pass: Pass): Uint32Array {
  const isUnset = pass.unset as NonNullable<Pass["unset"]>;
  const set: number[] = [];
  const unset: number[] = [];
  for (const i of order) (isUnset(values[i] as KeyValue) ? unset : set).push(i);
  const out = new Uint32Array(order.length);
  let at = 0;
  const ranked = rankKey(set.map((i) => values[i] as KeyValue), false, pass.reverse);
  if (ranked === undefined) for (const i of set) out[at++] = i;
  else for (const p of stablePass(Uint32Array.from(set.keys()), ranked.rank, ranked.size)) out[at++] = set[p] as number;
  for (let k = unset.length - 1; k >= 0; k--) out[at++] = unset[k] as number;
  return out;
}

/**
 * Recorded start time descending (unset = 0, so last; orderByStart), then
 * each key from last to first (stable sorts). This pre-order decides ties
 * such as the equal-priority pending jobs of golden 044 (23 before 22). Each key is
 * computed once per record and ranked, and each stable pass is a counting
 * sort over the ranks (the same order as Slurm's successive sorts).
 */
export function sortJobs(items: readonly SortItem[], keys: readonly SortKey[], now: number): SortItem[] {
  const passes: Pass[] = [startPass];
  for (let k = keys.length - 1; k >= 0; k--) {
    const key = keys[k] as SortKey;
    for (let p = key.parts.length - 1; p >= 0; p--) {
      const part = key.parts[p] as SubKey;
      passes.push({ get: part.get, natural: part.natural === true, reverse: key.reverse, unset: part.unset });
    }
  }
  const n = items.length;
  let order: Uint32Array | undefined;
  const values: KeyValue[] = new Array<KeyValue>(n);
  for (const pass of passes) {
    for (let i = 0; i < n; i++) {
      const item = items[i] as SortItem;
      values[i] = pass.get(item.job, now, item);
    }
    if (pass.unset !== undefined) {
      order = orderByStart(order ?? Uint32Array.from(items.keys()), values, pass);
      continue;
    }
    const ranked = rankKey(values, pass.natural, pass.reverse);
    if (ranked === undefined) continue;
    if (order === undefined) {
      order = new Uint32Array(n);
      for (let i = 0; i < n; i++) order[i] = i;
    }
    order = stablePass(order, ranked.rank, ranked.size);
  }
  if (order === undefined) return items.slice();
  const out: SortItem[] = new Array<SortItem>(n);
  for (let i = 0; i < n; i++) out[i] = items[order[i] as number] as SortItem;
  return out;
}
