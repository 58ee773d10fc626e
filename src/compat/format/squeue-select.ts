/**
 * @module format/squeue-select
 * Which job records squeue prints and as what: the filters (-j -u -p -t -A
 * -q -n -w -R -L), the default state set, folding split-off pending array
 * tasks back into their array's line, and -r's one line per array index.
 * Pure; mirrors Slurm's _filter_job / _combine_pending_array_tasks.
 */
import { DEFAULT_BITSTR_LEN, formatArrayTasks, parseArraySpec } from "../array-spec.ts";
import { expandHostlist } from "../hostlist.ts";
import { JOB_STATE_FLAGS } from "../states.ts";
import { isCompleting, isPending, isRunning, isSuspended, type Job } from "./job-values.ts";

/** One `-j` item: `17` or `17_2`. */
export interface JobIdSel {
  jobId: number;
  taskId?: number;
}

/** The filters squeue applies locally. Absent = not filtering on that. */
export interface JobSelection {
  jobs?: readonly JobIdSel[];
  accounts?: readonly string[];
  qos?: readonly string[];
  /** Long state names ("PENDING", "COMPLETING"); "all" = every state. */
  states?: readonly string[] | "all";
  /** Expanded host names of -w. */
  nodes?: readonly string[];
  /** User names or numeric uids. */
  users?: readonly string[];
  reservation?: string;
  names?: readonly string[];
  partitions?: readonly string[];
  licenses?: readonly string[];
}

const FLAG_NAMES = new Set(JOB_STATE_FLAGS.map(([l]) => l));
const upper = (s: string): string => s.toUpperCase();

/** Index set of a pending remainder ("4-10%2" → 4..10), undefined if unreadable. */
export function remainderTasks(job: Job): number[] | undefined {
  if (job.arrayTaskStr === "") return undefined;
  const parsed = parseArraySpec(job.arrayTaskStr, Number.MAX_SAFE_INTEGER);
  return parsed.ok ? parsed.value.taskIds : undefined;
}

/** Whether `sel` names this record; "partial" when it names only some pending indexes. */
function matchJobId(sel: JobIdSel, job: Job): "yes" | "partial" | "no" {
  if (sel.taskId === undefined) {
    // a heterogeneous job's leader id names every component
    return sel.jobId === job.jobId || (job.arrayJobId !== 0 && sel.jobId === job.arrayJobId) || (job.hetJobId !== undefined && job.hetJobId !== 0 && sel.jobId === job.hetJobId)
      ? "yes"
      : "no";
  }
  if (job.arrayJobId === 0 || sel.jobId !== job.arrayJobId) return "no";
  if (job.arrayTaskStr === "" && job.arrayTaskId === sel.taskId) return "yes";
  return remainderTasks(job)?.includes(sel.taskId) ? "partial" : "no";
}

function stateMatches(job: Job, states: readonly string[] | "all" | undefined): boolean {
  if (states === "all") return true;
  if (states === undefined) {
    if (isPending(job) || isRunning(job) || isSuspended(job)) return true;
    return job.stateFlags.length !== 0 && (isCompleting(job) || job.stateFlags.some((f) => upper(f) === "STAGE_OUT"));
  }
  const flags = job.stateFlags.map(upper);
  // A base state matches only a record without flags (Slurm compares the
  // whole state word); a flag matches any record carrying it.
  return states.some((s) => (FLAG_NAMES.has(s) ? flags.includes(s) : upper(job.state) === s && flags.length === 0));
}

const inList = (list: readonly string[] | undefined, value: string): boolean =>
  list === undefined || list.some((x) => upper(x) === upper(value));

function nodesIntersect(nodes: readonly string[], nodelist: string): boolean {
  if (nodelist === "") return false;
  const expanded = expandHostlist(nodelist);
  return expanded.ok && expanded.value.some((n) => nodes.includes(n));
}

function userMatches(users: readonly string[], job: Job): boolean {
  return users.some((u) => u === job.user || (/^\d+$/.test(u) && Number(u) === job.uid));
}

const partitionMatches = (partitions: readonly string[], job: Job): boolean =>
  job.partition.split(",").some((p) => partitions.includes(p));

/** Narrow a pending remainder to the indexes -j asked for (one index → an element line). */
function narrowRemainder(job: Job, jobs: readonly JobIdSel[]): Job {
  const wanted = new Set(jobs.filter((s) => s.jobId === job.arrayJobId).map((s) => s.taskId));
  const kept = (remainderTasks(job) ?? []).filter((t) => wanted.has(t));
  const only = kept[0];
  if (kept.length === 1 && only !== undefined) return { ...job, arrayTaskStr: "", arrayTaskId: only };
  return { ...job, arrayTaskStr: formatArrayTasks(kept, 0, 0) };
}

/** The record as printed, or undefined when a filter drops it (Slurm's _filter_job). */
export function selectJob(job: Job, sel: JobSelection): Job | undefined {
  if (job.jobId === 0) return undefined;
  let partial = false;
  if (sel.jobs !== undefined) {
    let yes = false;
    let some = false;
    for (const s of sel.jobs) {
      const verdict = matchJobId(s, job);
      if (verdict === "yes") yes = true;
      if (verdict !== "no") some = true;
    }
    if (!some) return undefined;
    partial = !yes;
  }
  if (sel.licenses !== undefined && !licensesMatch(sel.licenses, job.licenses ?? "")) return undefined;
  if (!stateMatches(job, sel.states)) return undefined;
  if (sel.accounts !== undefined && !inList(sel.accounts, job.account)) return undefined;
  if (sel.qos !== undefined && !inList(sel.qos, job.qos)) return undefined;
  if (sel.nodes !== undefined && !nodesIntersect(sel.nodes, job.nodelist)) return undefined;
  if (sel.users !== undefined && !userMatches(sel.users, job)) return undefined;
  if (sel.reservation !== undefined && job.reservation !== sel.reservation) return undefined;
  if (sel.names !== undefined && !inList(sel.names, job.name)) return undefined;
  if (sel.partitions !== undefined && !partitionMatches(sel.partitions, job)) return undefined;
  return partial && sel.jobs !== undefined ? narrowRemainder(job, sel.jobs) : job;
}

function mergeReason(into: string, add: string): string {
  if (into.split(",").includes(add) || into === add) return into;
  return `${into},${add}`;
}

/**
 * Fold pending records of an array (split off by a requeue or an update)
 * into the pending remainder with the same name and partition; their
 * reasons are joined with commas. Input order is kept otherwise. A record
 * folds into the first remainder (in input order) that takes it; within one
 * remainder, records are taken from the end of the list backwards.
 */
export function combinePendingArrayTasks(jobs: readonly Job[]): Job[] {
  // Split-off tasks by array id, in input order (heads never qualify: they have a task string).
  const tasksByArray = new Map<number, number[]>();
  jobs.forEach((t, j) => {
    if (!isPending(t) || t.arrayTaskStr !== "" || t.arrayTaskId < 0) return;
    const list = tasksByArray.get(t.arrayJobId);
    if (list === undefined) tasksByArray.set(t.arrayJobId, [j]);
    else list.push(j);
  });
  if (tasksByArray.size === 0) return [...jobs];
  const taken = new Uint8Array(jobs.length);
  const replaced = new Map<number, Job>();
  jobs.forEach((head, i) => {
    if (head.arrayTaskStr === "" || !isPending(head)) return;
    const candidates = tasksByArray.get(head.arrayJobId);
    if (candidates === undefined) return;
    const tasks = remainderTasks(head);
    if (tasks === undefined) return;
    let reason = head.reason;
    let merged = 0;
    for (let k = candidates.length - 1; k >= 0; k--) {
      const j = candidates[k] as number;
      const t = jobs[j] as Job;
      if (taken[j] === 1 || t.name !== head.name || t.partition !== head.partition) continue;
      tasks.push(t.arrayTaskId);
      reason = mergeReason(reason, t.reason);
      taken[j] = 1;
      merged++;
    }
    if (merged > 0) replaced.set(i, { ...head, reason, arrayTaskStr: formatArrayTasks(tasks, 0, DEFAULT_BITSTR_LEN) });
  });
  const out: Job[] = [];
  jobs.forEach((job, i) => {
    if (taken[i] !== 1) out.push(replaced.get(i) ?? job);
  });
  return out;
}

/** -r: one record per index of a pending remainder, in index order. */
export function expandArrayRecord(job: Job): Job[] {
  if (job.arrayTaskStr === "") return [job];
  const tasks = remainderTasks(job);
  if (tasks === undefined) return [job];
  return tasks.map((t) => ({ ...job, arrayTaskStr: "", arrayTaskId: t }));
}

/**
 * Order of a single-job load (`squeue -j N` with one id): the record N first,
 * then its array's other records newest first, as the controller's array
 * hash chain returns them (golden 050: 17_3, 17_2, 17_1); a het job's other
 * components follow its leader in offset order.
 */
export function singleJobLoadOrder(jobs: readonly Job[], jobId: number): Job[] {
  const own = jobs.filter((j) => j.jobId === jobId);
  const siblings = jobs.filter((j) => j.jobId !== jobId && j.arrayJobId === jobId && j.arrayJobId !== 0);
  // a heterogeneous job's leader id: the leader, then its components by offset (oracle 22.05: a running het
  // job lists +0 +1 +2; a pending one +2 +1 +0, which the sort's reversal of unset start times makes of this)
  const components = jobs.filter((j) => j.jobId !== jobId && j.hetJobId === jobId);
  if (components.length > 0) return [...own, ...components, ...siblings.reverse()];
  return [...own, ...siblings.reverse()];
}

/** squeue -L: jobs that asked for any of the named licenses. */
function licensesMatch(names: readonly string[], licenses: string): boolean {
  const held = licenses.split(/[,|]/).map((item) => item.split(":")[0] ?? "");
  return names.some((n) => held.includes(n));
}
