/**
 * @module sched/plan/eligibility
 * Why a pending job may not be considered yet, in Slurm's reason names: held,
 * begin time in the future, dependencies, partition state and limits, array
 * throttle. "" means eligible; resource fit is decided afterwards.
 */
import type { ClusterState, JobRecord } from "../model/types.ts";
import { askNodesMin } from "../../compat/job-layout.ts";
import { evaluateDependency, parseDependency, type DepJobView } from "../../compat/dependency.ts";
import { jobPartitions } from "../model/job-partitions.ts";

export interface DependencyIndex {
  byId: Map<number, DepJobView>;
  all: DepJobView[];
}

export function buildDependencyIndex(state: ClusterState): DependencyIndex {
  const all: DepJobView[] = [];
  const byId = new Map<number, DepJobView>();
  for (const job of state.jobs.values()) {
    const i = job.info;
    const view: DepJobView = {
      jobId: i.jobId,
      arrayJobId: i.arrayJobId,
      arrayTaskId: i.arrayTaskId,
      state: i.state,
      startTime: i.startTime,
      endTime: i.endTime,
      user: i.user,
      name: i.name,
      exitCode: i.exitCode,
      // a held array's tasks are still in its pending remainder: afterok:<array>_N waits on it
      ...(job.arrayPending.length > 0 ? { pendingTasks: job.arrayPending } : {}),
    };
    all.push(view);
    byId.set(i.jobId, view);
  }
  return { byId, all };
}

/**
 * `runningPerArray` (array job id -> running elements) is built once per pass by
 * the caller, so the throttle check costs O(1) instead of a scan of all jobs.
 */
export function eligibility(
  state: ClusterState,
  job: JobRecord,
  now: number,
  deps: DependencyIndex,
  runningPerArray?: ReadonlyMap<number, number>,
): string {
  const info = job.info;
  if (info.priority === 0) return heldReason(job);
  if (info.eligibleTime > now) return "BeginTime";
  const why = partitionsReason(state, job);
  if (why !== "") return why;
  if (job.spec.dependency) {
    const why = dependencyReason(job, now, deps);
    if (why !== "") return why;
  }
  if (job.arrayThrottle > 0 && job.arrayPending.length > 0) {
    if (runningOf(state, info.arrayJobId, runningPerArray) >= job.arrayThrottle) return "JobArrayTaskLimit";
  }
  return "";
}

/**
 * Whether the job's partition lets it run now: state, MaxTime, node limits. A job listing several
 * partitions passes when one of them does; when none does, the first listed one's reason is given.
 */
function partitionsReason(state: ClusterState, job: JobRecord): string {
  const text = job.info.partition;
  if (!text.includes(",")) return partitionReason(state, job, text);
  let first = "";
  for (const name of jobPartitions(text)) {
    const why = partitionReason(state, job, name);
    if (why === "") return "";
    if (first === "") first = why;
  }
  return first === "" ? "BadConstraints" : first;
}

/** Why partition `name` cannot run the job now ("" = it can): state, MaxTime, node limits. */
export function partitionReason(state: ClusterState, job: JobRecord, name: string): string {
  const info = job.info;
  const partition = partitionOf(state, name);
  if (partition === undefined) return "BadConstraints";
  if (partition.info.state === "DOWN") return "PartitionDown";
  if (partition.info.state === "INACTIVE") return "PartitionInactive";
  const maxTime = partition.info.maxTimeMin;
  if (maxTime !== undefined && (info.timeLimitMin === undefined || info.timeLimitMin > maxTime)) return "PartitionTimeLimit";
  // Slurm accepts such jobs (EnforcePartLimits=NO) and leaves them pending with this reason.
  // the job's least node count, not the pending NumNodes (Slurm's estimate: `-n20 -O` shows 5 and runs on 1)
  const nodesMin = info.state === "PENDING" ? nodesNeeded(job) : info.numNodes;
  const maxNodes = partition.info.maxNodes;
  if ((maxNodes !== undefined && nodesMin > maxNodes) || nodesMin < partition.info.minNodes) return "PartitionNodeLimit";
  // More nodes than the partition has (queued under EnforcePartLimits=NO): it can never start.
  if (info.state === "PENDING" && nodesMin > partition.nodeNames.length) return "PartitionConfig";
  if (info.state === "PENDING" && job.unfitAtSubmit === true) return "PartitionConfig";
  return "";
}

/** A held job's (priority 0) reason: who held it. Every other test waits until it is released. */
export function heldReason(job: JobRecord): string {
  return job.info.heldByAdmin ? "JobHeldAdmin" : "JobHeldUser";
}

/** The fewest nodes the job can run on: its -N minimum as sbatch/srun lower it, or more when it was found larger than its partition. */
export function nodesNeeded(job: JobRecord): number {
  return Math.max(askNodesMin(job.spec), job.nodesNeeded ?? 0);
}

/** Partition by name, indexed once per state object (partitions never change after start-up). */
let indexedState: ClusterState | undefined;
let partitionIndex = new Map<string, ClusterState["partitions"][number]>();

function partitionOf(state: ClusterState, name: string): ClusterState["partitions"][number] | undefined {
  if (indexedState !== state || partitionIndex.size !== state.partitions.length) {
    partitionIndex = new Map(state.partitions.map((p) => [p.info.name, p]));
    indexedState = state;
  }
  return partitionIndex.get(name);
}

function runningOf(state: ClusterState, arrayJobId: number, index: ReadonlyMap<number, number> | undefined): number {
  if (index !== undefined) return index.get(arrayJobId) ?? 0;
  let running = 0;
  for (const other of state.jobs.values()) {
    if (other.info.arrayJobId === arrayJobId && other.info.state === "RUNNING") running++;
  }
  return running;
}

/** Dependency, DependencyNeverSatisfied, or "" when the job's dependency is satisfied at `now`. */
export function dependencyReason(job: JobRecord, now: number, deps: DependencyIndex): string {
  const parsed = parseDependency(job.spec.dependency);
  if (!parsed.ok) return "DependencyNeverSatisfied";
  const lookup = (jobId: number, arrayTaskId?: number): DepJobView | undefined => {
    if (arrayTaskId === undefined) return deps.byId.get(jobId);
    return deps.all.find((v) => v.arrayJobId === jobId && v.arrayTaskId === arrayTaskId);
  };
  const self = { user: job.info.user, name: job.info.name, jobId: job.info.jobId };
  const verdict = evaluateDependency(parsed.value, lookup, self, deps.all, now);
  if (verdict === "satisfied") return "";
  return verdict === "never" ? "DependencyNeverSatisfied" : "Dependency";
}
