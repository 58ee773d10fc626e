/**
 * @module format/squeue-sort
 * squeue's job order: first by expected start time descending, then one
 * stable sort per key of the sort spec from the last key to the first (what
 * Slurm does with glibc's merge-sorting qsort), so ties keep the controller's
 * order. Default spec "P,t,-p"; --start uses "S". Table-driven by letter.
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { expandHostlist, naturalCompare } from "../hostlist.ts";
import { jobStateCompact, jobStateLong } from "../states.ts";
import { type Job, jobTimeUsed, timeLeft } from "./job-values.ts";

/** A record being sorted: the job and its partition-tier priority (-P). */
export interface SortItem {
  job: Job;
  partPrio: number;
}

type Compare = (a: SortItem, b: SortItem, now: number) => number;

const INFINITE = 0xffffffff;
const cmp = (a: number | string, b: number | string): number => (a < b ? -1 : a > b ? 1 : 0);
const byNum =
  (get: (j: Job, now: number) => number): Compare =>
  (a, b, now) =>
    cmp(get(a.job, now), get(b.job, now));
const byStr =
  (get: (j: Job) => string): Compare =>
  (a, b) =>
    cmp(get(a.job), get(b.job));
const same: Compare = () => 0;

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
const idKey = (job: Job): [number, number] =>
  job.arrayJobId !== 0 && (job.arrayTaskId >= 0 || job.arrayTaskStr !== "")
    ? [job.arrayJobId, job.arrayTaskStr !== "" ? INFINITE - 1 : job.arrayTaskId]
    : [job.jobId, INFINITE - 1];

function firstHost(nodelist: string): string {
  const names = expandHostlist(nodelist);
  if (!names.ok) return nodelist;
  return [...names.value].sort(naturalCompare)[0] ?? "";
}

const byId: Compare = (a, b) => {
  const [a1, a2] = idKey(a.job);
  const [b1, b2] = idKey(b.job);
  return cmp(a1, b1) || cmp(a2, b2);
};

const byPriority: Compare = (a, b) => cmp(a.partPrio, b.partPrio) || cmp(a.job.priority, b.job.priority);

/** Sort letter → comparator (ascending). Letters Slurm accepts but ignores compare equal. */
const SORT_KEYS: Readonly<Record<string, Compare>> = {
  B: byStr((j) => j.batchHost),
  C: byNum((j) => j.numCpus),
  D: byNum((j) => j.numNodes),
  G: byNum((j) => j.gid),
  H: same,
  I: same,
  J: same,
  L: byNum((j, now) => timeLeft(j, now) ?? INFINITE),
  M: byNum((j, now) => jobTimeUsed(j, now)),
  N: (a, b) => naturalCompare(firstHost(a.job.nodelist), firstHost(b.job.nodelist)),
  O: same,
  P: byStr((j) => j.partition),
  Q: byPriority,
  S: byNum(startKey),
  T: byStr(jobStateLong),
  U: byNum((j) => j.uid),
  V: byNum((j) => j.submitTime),
  c: same,
  d: same,
  e: byNum((j) => j.endTime),
  f: same,
  g: byStr((j) => j.group),
  h: same,
  i: byId,
  j: byStr((j) => j.name),
  l: byNum((j) => j.timeLimitMin ?? INFINITE),
  m: byNum((j) => j.memPerNodeMib || j.memPerCpuMib),
  n: same,
  p: byPriority,
  t: byStr(jobStateCompact),
  u: byStr((j) => j.user),
  v: byStr((j) => j.reservation),
  z: same,
};

/** One parsed sort key. */
interface SortKey {
  compare: Compare;
  reverse: boolean;
}

const clusterCompare: Compare = () => 0; // one cluster: all records compare equal

/**
 * Parse a sort spec ("P,t,-p", "-S", "cluster,i"): letters with an optional
 * leading "+"/"-"; "cluster" sorts by cluster name. Error text as Slurm's.
 */
export function parseJobSort(spec: string): Result<SortKey[]> {
  const keys: SortKey[] = [];
  for (let i = 0; i < spec.length; i++) {
    const ch = spec[i] ?? "";
    if (ch === "," || ch === "+" || ch === "-") continue;
    const reverse = i > 0 && spec[i - 1] === "-";
    if (spec.slice(i, i + 7).toLowerCase() === "cluster") {
      keys.push({ compare: clusterCompare, reverse });
      i += 6;
      continue;
    }
    if (ch === "b") continue; // vestigial gres sort: Slurm only logs it
    const compare = SORT_KEYS[ch];
    if (compare === undefined) return err("InvalidSort", `Invalid sort specification: ${ch}`, 1);
    keys.push({ compare, reverse });
  }
  return ok(keys);
}

/**
 * Recorded start time descending (unset = 0, so last), then each key from
 * last to first (stable sorts). This pre-order decides ties such as the
 * equal-priority pending jobs of golden 044 (23 before 22).
 */
export function sortJobs(items: readonly SortItem[], keys: readonly SortKey[], now: number): SortItem[] {
  const out = [...items];
  out.sort((a, b) => cmp(b.job.startTime, a.job.startTime));
  for (let k = keys.length - 1; k >= 0; k--) {
    const key = keys[k];
    if (key === undefined) continue;
    out.sort((a, b) => (key.reverse ? -1 : 1) * key.compare(a, b, now));
  }
  return out;
}
