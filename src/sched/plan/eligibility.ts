/**
 * @module sched/plan/eligibility
 * Why a pending job may not be considered yet, in Slurm's reason names: held,
 * begin time in the future, dependencies, partition state and limits, array
 * throttle. "" means eligible; resource fit is decided afterwards.
 */
import type { ClusterState, JobRecord } from "../model/types.ts";
import { evaluateDependency, parseDependency, type DepJobView } from "../../compat/dependency.ts";

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

export function eligibility(state: ClusterState, job: JobRecord, now: number, deps: DependencyIndex): string {
  const info = job.info;
  if (info.priority === 0) return info.heldByAdmin ? "JobHeldAdmin" : "JobHeldUser";
  if (info.eligibleTime > now) return "BeginTime";
  const partition = state.partitions.find((p) => p.info.name === info.partition);
  if (partition === undefined) return "BadConstraints";
  if (partition.info.state === "DOWN") return "PartitionDown";
  if (partition.info.state === "INACTIVE") return "PartitionInactive";
  const maxTime = partition.info.maxTimeMin;
  if (maxTime !== undefined && (info.timeLimitMin === undefined || info.timeLimitMin > maxTime)) return "PartitionTimeLimit";
  if (job.spec.dependency) {
    const why = dependencyReason(job, now, deps);
    if (why !== "") return why;
  }
  if (job.arrayThrottle > 0 && job.arrayPending.length > 0) {
    let running = 0;
    for (const other of state.jobs.values()) {
      if (other.info.arrayJobId === info.arrayJobId && other.info.state === "RUNNING") running++;
    }
    if (running >= job.arrayThrottle) return "JobArrayTaskLimit";
  }
  return "";
}

function dependencyReason(job: JobRecord, now: number, deps: DependencyIndex): string {
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
