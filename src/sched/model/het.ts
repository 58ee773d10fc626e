/**
 * @module sched/model/het
 * Heterogeneous jobs in the state: each component is its own JobRecord with consecutive
 * ids, the first (offset 0) the leader whose id is the whole job's (HetJobId). These
 * helpers find a job's components; they read the state and change nothing. (Typed over the
 * few fields they read, so that this leaf imports nothing of the model.)
 */
import type { JobInfoState } from "./state-types.ts";

type HetInfo = Pick<JobInfoState, "jobId" | "hetJobId" | "hetJobOffset" | "hetJobIdSet">;

/** Whether the record is a component of a heterogeneous job (the leader included). */
export const isHetComponent = (info: HetInfo): boolean => (info.hetJobId ?? 0) !== 0;

/** Whether the record is a het component other than the leader. */
export const isHetFollower = (info: HetInfo): boolean => isHetComponent(info) && (info.hetJobOffset ?? 0) !== 0;

/** The component count from HetJobIdSet ("17-18" → 2, "17" → 1); 0 for an ordinary job. */
export function hetSize(info: HetInfo): number {
  if (!isHetComponent(info)) return 0;
  const [first, last] = (info.hetJobIdSet ?? "").split("-").map(Number);
  if (first === undefined || !Number.isInteger(first)) return 1;
  return last === undefined || !Number.isInteger(last) || last < first ? 1 : last - first + 1;
}

/** Slurm's HetJobIdSet for `count` components from `leaderId` (ids are consecutive). */
export const hetIdSet = (leaderId: number, count: number): string => (count <= 1 ? String(leaderId) : `${leaderId}-${leaderId + count - 1}`);

/**
 * Every component of the het job `job` belongs to, leader first (offset order); just `[job]`
 * for an ordinary job. Components already purged from the state are left out.
 */
export function hetComponents<T extends { info: HetInfo }>(jobs: ReadonlyMap<number, T>, job: T): T[] {
  const info = job.info;
  if (!isHetComponent(info)) return [job];
  const leaderId = info.hetJobId ?? info.jobId;
  const out: T[] = [];
  for (let offset = 0; offset < hetSize(info); offset++) {
    const c = jobs.get(leaderId + offset);
    if (c !== undefined && c.info.hetJobId === leaderId) out.push(c);
  }
  return out;
}

/**
 * Whether a batch script runs for this record. Every component of an sbatch het job shows
 * BatchFlag=1 (as in Slurm), but only the leader's script runs: the other components are
 * allocations that end with it (or when cancelled), with no batch step of their own.
 */
export const runsBatchScript = (info: HetInfo & Pick<JobInfoState, "batchFlag">): boolean => info.batchFlag && !isHetFollower(info);
