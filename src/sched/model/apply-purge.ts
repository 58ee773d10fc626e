/**
 * @module sched/model/apply-purge
 * Finished jobs leave the controller's memory after MinJobAge, as in Slurm (its purge of old
 * job records): squeue and scontrol no longer know them, sacct still does (the shell archives
 * the records this returns before it drops them: ctld/job-archive.ts). The leader finds the
 * candidates (purgeCandidates) and commits them with its clock as `at`; applyPurgeJobs
 * re-checks each against the state and that `at`, so a candidate gone, requeued or too young
 * by the time the entry applies is skipped. A job array (every record sharing the array's
 * job id, its pending remainder included) and a heterogeneous job leave together, once every
 * record qualifies: as Slurm keeps an array's meta record while any task remains, and a het
 * job is one job. A job that a pending job's dependency names stays (dependedOn). MinJobAge=0 keeps every record, as in Slurm. The purged jobs' usage is folded into state.purgedUsage first
 * (sched/acct/purged-usage.ts), so fair share and GrpTRESMins lose nothing.
 */
import type { Command } from "./commands.ts";
import { isJobFinished, type ClusterState, type JobRecord } from "./types.ts";
import { emptyResult, type ApplyResult } from "./apply-result.ts";
import { hetComponents, isHetComponent } from "./het.ts";
import { JobTable } from "./job-table.ts";
import { foldPurgedUsage } from "../acct/purged-usage.ts";
import { jobAssoc } from "../acct/fair-tree.ts";
import { jobTres } from "../acct/limits.ts";
import { parseDependency } from "../../compat/dependency.ts";

/** The most jobs one purgeJobs command names (an entry stays a few tens of KB). */
export const PURGE_BATCH_MAX = 5000;

/** Whether this one record is finished and at least MinJobAge old at `at`. */
function oldEnough(job: JobRecord, at: number, minAgeSec: number): boolean {
  const info = job.info;
  // MinJobAge=0: Slurm never purges job records.
  if (minAgeSec <= 0 || !isJobFinished(info) || job.arrayPending.length > 0) return false;
  const ended = info.endTime > 0 ? info.endTime : info.submitTime;
  return ended + minAgeSec <= at;
}

/** The records that leave with `job`: its array's, or its het job's components, or itself. */
function group(state: ClusterState, job: JobRecord): JobRecord[] {
  const arrayId = job.info.arrayJobId;
  if (arrayId > 0) {
    if (state.jobs instanceof JobTable) return state.jobs.family(arrayId);
    return [...state.jobs.values()].filter((j) => j.info.arrayJobId === arrayId);
  }
  if (isHetComponent(job.info)) return hetComponents(state.jobs, job);
  return [job];
}

/**
 * Job ids that a pending job's dependency names. Such a job stays: Slurm keeps what it settled
 * in the dependent's record (a failed afterok stays "(failed)" after the job it names is purged:
 * oracle 22.05, MinJobAge=300), while Spur evaluates a dependency against the records in the
 * state, where a job no longer known counts as satisfied (compat/dependency.ts). Keeping the
 * few records that pending dependents name keeps their verdict; they leave once no pending
 * job names them.
 */
function dependedOn(state: ClusterState): Set<number> {
  const ids = new Set<number>();
  for (const job of state.jobs.values()) {
    if (job.info.state !== "PENDING") continue;
    // most pending jobs name none: no parsing, no allocation for them (this walks every job each purge turn)
    const { dependency } = job.spec;
    if (dependency !== "") addRefs(ids, dependency);
    if (job.info.dependency !== "" && job.info.dependency !== dependency) addRefs(ids, job.info.dependency);
  }
  return ids;
}

function addRefs(ids: Set<number>, text: string): void {
  const parsed = parseDependency(text);
  if (!parsed.ok) return;
  for (const item of parsed.value.items) for (const ref of item.jobIds) ids.add(ref.jobId);
}

const named = (info: JobRecord["info"], ids: ReadonlySet<number>): boolean =>
  ids.has(info.jobId) || (info.arrayJobId > 0 && ids.has(info.arrayJobId)) || (info.hetJobId !== undefined && info.hetJobId > 0 && ids.has(info.hetJobId));

/** The group of `job` if every record of it may leave at `at`, else undefined. */
function purgeableGroup(state: ClusterState, job: JobRecord, at: number, depended: ReadonlySet<number>): JobRecord[] | undefined {
  const minAgeSec = state.config.minJobAgeSec;
  const members = group(state, job);
  return members.every((m) => oldEnough(m, at, minAgeSec) && !named(m.info, depended)) ? members : undefined;
}

/**
 * Ids of jobs that may leave at `now` (up to `max`, whole groups only), in table order: what the
 * leader proposes. Reads the state, changes nothing. `finished`: the jobs to look at, at least
 * every finished one, in table order (the controller passes the ones it listed at this state,
 * ctld/job-phases.ts); every job by default.
 */
export function purgeCandidates(state: ClusterState, now: number, max = PURGE_BATCH_MAX, finished: Iterable<JobRecord> = state.jobs.values()): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  const minAgeSec = state.config.minJobAgeSec;
  let depended: Set<number> | undefined;
  for (const job of finished) {
    const id = job.info.jobId;
    if (seen.has(id) || !oldEnough(job, now, minAgeSec)) continue;
    const members = purgeableGroup(state, job, now, (depended ??= dependedOn(state)));
    for (const m of group(state, job)) seen.add(m.info.jobId);
    if (members === undefined) continue;
    if (out.length + members.length > max && out.length > 0) break;
    for (const m of members) out.push(m.info.jobId);
  }
  return out;
}

export function applyPurgeJobs(state: ClusterState, c: Extract<Command, { type: "purgeJobs" }>): ApplyResult {
  const result = emptyResult();
  const leaving = new Map<number, JobRecord>();
  let depended: Set<number> | undefined;
  // Validate first (every group re-checked at this command's `at`), then change.
  for (const id of c.jobIds) {
    const job = state.jobs.get(id);
    if (job === undefined || leaving.has(id)) continue;
    const members = purgeableGroup(state, job, c.at, (depended ??= dependedOn(state)));
    if (members === undefined) continue;
    for (const m of members) leaving.set(m.info.jobId, m);
  }
  if (leaving.size === 0) return result;
  const purged = [...leaving.values()].sort((a, b) => a.info.jobId - b.info.jobId);
  foldPurgedUsage(state, purged, c.at, {
    assocId: (job) => jobAssoc(state, job)?.id,
    tresOf: (job) => jobTres(job),
  });
  for (const job of purged) state.jobs.delete(job.info.jobId);
  result.ids = purged.map((j) => j.info.jobId);
  result.purged = purged;
  return result;
}
