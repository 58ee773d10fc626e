/**
 * @module sched/model/job-table
 * The controller's job map, with one index kept beside it: the records of each job array
 * (the parent's pending remainder and every task split off it), by the array's job id.
 * `scontrol show job N` and `squeue -j N` then cost what the answer costs, not a walk over
 * every job (100k jobs: ~2 s per lookup, long enough to stall heartbeats into elections).
 * It is still a Map, so apply(), snapshots and tests use it unchanged; the index follows
 * every set/delete/clear. A record's arrayJobId is fixed once it is in the table.
 */
import type { JobRecord } from "./types.ts";
import { hetComponents, isHetComponent, isHetFollower } from "./het.ts";

export class JobTable extends Map<number, JobRecord> {
  /** arrayJobId -> ids of the records of that array (its own id included). */
  private readonly families = new Map<number, Set<number>>();

  override set(id: number, job: JobRecord): this {
    const old = super.get(id);
    if (old !== undefined) this.unindex(id, old);
    super.set(id, job);
    const array = job.info?.arrayJobId ?? 0;
    if (array !== 0) {
      let ids = this.families.get(array);
      if (ids === undefined) this.families.set(array, (ids = new Set()));
      ids.add(id);
    }
    return this;
  }

  override delete(id: number): boolean {
    const old = super.get(id);
    if (old === undefined) return false;
    this.unindex(id, old);
    return super.delete(id);
  }

  override clear(): void {
    this.families.clear();
    super.clear();
  }

  /** Job `id` and, when it names an array, every record of that array (in table order is not promised). */
  family(id: number): JobRecord[] {
    const ids = this.families.get(id);
    const out: JobRecord[] = [];
    const own = super.get(id);
    if (own !== undefined) out.push(own);
    if (ids !== undefined) for (const i of ids) if (i !== id) out.push(super.get(i) as JobRecord);
    return out;
  }

  private unindex(id: number, job: JobRecord): void {
    const array = job.info?.arrayJobId ?? 0;
    const ids = this.families.get(array);
    if (ids === undefined) return;
    ids.delete(id);
    if (ids.size === 0) this.families.delete(array);
  }
}

/**
 * The records a lookup of `ids` names (a job, or an array with all its tasks), in table
 * order. One id (scontrol show job, squeue -j N) costs the size of its family: a split
 * re-inserts the parent's remainder after the task split off it (apply-run), so in table
 * order an array's tasks come by id and the parent record last. Several ids walk the table.
 */
export function jobsNamed(jobs: Map<number, JobRecord>, ids: readonly number[]): JobRecord[] {
  const named = namedRecords(jobs, ids);
  // a heterogeneous job's leader id names every component (scontrol show job N, squeue -j N)
  const leaders = named.filter((j) => isHetComponent(j.info) && !isHetFollower(j.info) && ids.includes(j.info.jobId));
  if (leaders.length === 0) return named;
  const out = [...named];
  for (const leader of leaders) for (const c of hetComponents(jobs, leader)) if (!out.includes(c)) out.push(c);
  return out;
}

function namedRecords(jobs: Map<number, JobRecord>, ids: readonly number[]): JobRecord[] {
  const only = ids.length === 1 ? ids[0] : undefined;
  if (only === undefined || !(jobs instanceof JobTable)) {
    const wanted = new Set(ids);
    return [...jobs.values()].filter((j) => wanted.has(j.info.jobId) || wanted.has(j.info.arrayJobId));
  }
  const family = jobs.family(only);
  if (family.length <= 1) return family;
  const parent = family.filter((j) => j.info.jobId === only && j.info.arrayJobId === only);
  const rest = family.filter((j) => !parent.includes(j)).sort((a, b) => a.info.jobId - b.info.jobId);
  return [...rest, ...parent];
}
