/**
 * @module sched/model/select-jobs
 * Which jobs a scancel/scontrol request names: ids ("17", "17_2", "17_[1-3]"),
 * or filters (user, name, partition, states, ...). An array id names the whole
 * array; an element id names one element, which may still be a pending task
 * inside its array's meta record.
 */
import type { ClusterState, JobRecord } from "./types.ts";
import { isJobFinished } from "./types.ts";
import { expandHostlist } from "../../compat/hostlist.ts";
import { hetComponents, isHetComponent, isHetFollower } from "./het.ts";
import type { JobFilterState } from "./state-types.ts";
import { JobTable } from "./job-table.ts";

export interface JobTarget {
  /** The id as the user wrote it, for per-item messages. */
  id: string;
  job: JobRecord | undefined;
  /** Pending tasks of an array meta record to act on (empty = the whole record). */
  pendingTasks: number[];
  /** The id named one component of a heterogeneous job ("17+1", or a component's own id), not the whole job. */
  hetPart?: boolean;
}

const ID_PATTERN = /^(\d+)(?:_(\d+|\[[\d,\-%:]+\]))?$/;

export function parseJobIdText(text: string): { jobId: number; tasks: number[] | undefined } | undefined {
  const m = ID_PATTERN.exec(text.trim());
  if (m === null) return undefined;
  const jobId = Number(m[1]);
  if (m[2] === undefined) return { jobId, tasks: undefined };
  if (!m[2].startsWith("[")) return { jobId, tasks: [Number(m[2])] };
  const tasks: number[] = [];
  for (const part of m[2].slice(1, -1).split("%")[0]?.split(",") ?? []) {
    const [lo, hi] = part.split("-").map(Number);
    if (lo === undefined || Number.isNaN(lo)) return undefined;
    for (let t = lo; t <= (hi ?? lo); t++) tasks.push(t);
  }
  return { jobId, tasks };
}

const HET_ID_PATTERN = /^(\d+)\+(\d+)$/;

/**
 * A heterogeneous job's ids: "17+1" names that component alone; a leader's id names every
 * component; a component's own id names it alone. Undefined: the text names no het job.
 */
function hetTargets(state: ClusterState, text: string): JobTarget[] | undefined {
  const m = HET_ID_PATTERN.exec(text.trim());
  if (m !== null) {
    const leaderId = Number(m[1]);
    const job = state.jobs.get(leaderId + Number(m[2]));
    const valid = job !== undefined && job.info.hetJobId === leaderId && job.info.hetJobOffset === Number(m[2]);
    return [{ id: text, job: valid ? job : undefined, pendingTasks: [], hetPart: true }];
  }
  const direct = /^\d+$/.test(text.trim()) ? state.jobs.get(Number(text)) : undefined;
  if (direct === undefined || !isHetComponent(direct.info)) return undefined;
  if (isHetFollower(direct.info)) return [{ id: text, job: direct, pendingTasks: [], hetPart: true }];
  return hetComponents(state.jobs, direct).map((job) => ({ id: text, job, pendingTasks: [] }));
}

/** Resolve one id text into targets; unknown ids come back with job undefined. */
export function targetsForId(state: ClusterState, text: string): JobTarget[] {
  const het = hetTargets(state, text);
  if (het !== undefined) return het;
  const parsed = parseJobIdText(text);
  if (parsed === undefined) return [{ id: text, job: undefined, pendingTasks: [] }];
  const { jobId, tasks } = parsed;
  const direct = state.jobs.get(jobId);
  const arrayMembers = arrayRecords(state, jobId, tasks !== undefined);
  if (tasks === undefined) {
    if (arrayMembers.length > 0) return arrayMembers.map((job) => ({ id: text, job, pendingTasks: [] }));
    return [{ id: text, job: direct, pendingTasks: [] }];
  }
  const out: JobTarget[] = [];
  for (const task of tasks) {
    const element = arrayMembers.find((j) => j.info.arrayTaskId === task);
    const meta = arrayMembers.find((j) => j.arrayPending.includes(task));
    const id = `${jobId}_${task}`;
    if (element) out.push({ id, job: element, pendingTasks: [] });
    else if (meta) out.push({ id, job: meta, pendingTasks: [task] });
    else if (direct && direct.info.arrayJobId === 0 && tasks.length === 1) out.push({ id, job: undefined, pendingTasks: [] });
    else out.push({ id, job: undefined, pendingTasks: [] });
  }
  return out;
}

/**
 * The records of array `jobId` (none for a plain job), in table order unless `anyOrder`. The job
 * table's family index answers without walking every job (issue 16: 15-21 ms a scancel or
 * scontrol update of one job at 122k jobs, on every replica); it does not keep table order, so
 * a whole array of several records asked in order still walks the table.
 */
function arrayRecords(state: ClusterState, jobId: number, anyOrder: boolean): JobRecord[] {
  if (state.jobs instanceof JobTable) {
    const family = state.jobs.family(jobId).filter((j) => j.info.arrayJobId === jobId);
    if (anyOrder || family.length <= 1) return family;
  }
  return [...state.jobs.values()].filter((j) => j.info.arrayJobId === jobId);
}

/** Jobs matching every given filter field (active jobs only), for scancel -u/-n/-p/-t ... */
export function jobsMatching(state: ClusterState, f: JobFilterState): JobRecord[] {
  const nodes = f.nodelist ? new Set(expandOrEmpty(f.nodelist)) : undefined;
  const states = f.states.map((s) => s.toUpperCase());
  const out: JobRecord[] = [];
  for (const job of state.jobs.values()) {
    const i = job.info;
    if (isJobFinished(i)) continue;
    if (f.user && i.user !== f.user && String(i.uid) !== f.user) continue;
    if (f.name && i.name !== f.name) continue;
    // scancel -p compares the whole Partition= text (oracle 22.05: -p gpu,debug matches a pending "gpu,debug" job, -p gpu does not)
    if (f.partition && f.partition !== i.partition && !f.partition.split(",").includes(i.partition)) continue;
    if (f.account && i.account !== f.account) continue;
    if (f.qos && i.qos !== f.qos) continue;
    if (f.reservation && i.reservation !== f.reservation) continue;
    if (states.length > 0 && !states.includes(i.state)) continue;
    if (nodes && !i.alloc.some((a) => nodes.has(a.node))) continue;
    out.push(job);
  }
  return out;
}

function expandOrEmpty(h: string): string[] {
  const r = expandHostlist(h);
  return r.ok ? r.value : [];
}

export function selectTargets(state: ClusterState, f: JobFilterState): JobTarget[] {
  const hasOtherFilters = Boolean(
    f.user || f.name || f.partition || f.account || f.qos || f.reservation || f.nodelist || f.states.length,
  );
  const matching = hasOtherFilters ? new Set(jobsMatching(state, f)) : undefined;
  if (f.jobIds.length === 0) {
    return [...(matching ?? [])].map((job) => ({ id: String(job.info.jobId), job, pendingTasks: [] }));
  }
  const out: JobTarget[] = [];
  for (const text of f.jobIds) {
    for (const t of targetsForId(state, text)) {
      if (matching && t.job && !matching.has(t.job)) continue;
      out.push(t);
    }
  }
  return out;
}
