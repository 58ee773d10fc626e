/**
 * @module sim/controller/invariants
 * What must hold after every step of the controller simulation, whatever the
 * interleaving of user commands and stale scheduler decisions:
 * - resources: every node's counters equal the sum of what its live jobs hold, never
 *   more than it has; GPU indices held by one job only, and by live jobs only;
 * - running jobs: a RUNNING or SUSPENDED job has an allocation, on existing nodes that
 *   are not DOWN; a PENDING or finished job holds nothing;
 * - arrays: a pending meta record's task list is sorted, without duplicates, shown by its
 *   task string, and no task is both pending and split off; each (array, task) exists once;
 * - counts: the job map is keyed by job id, every id is below nextJobId, ids never go back.
 * Returns the first violation's description, "" when all hold.
 */
import { formatArrayTasks } from "../../../src/compat/array-spec.ts";
import type { ClusterState, JobRecord } from "../../../src/sched/model/types.ts";
import { isJobFinished } from "../../../src/sched/model/types.ts";

export function checkInvariants(state: ClusterState, nextJobIdBefore: number): string {
  return checkCounts(state, nextJobIdBefore) || checkJobs(state) || checkNodes(state) || checkArrays(state);
}

function checkCounts(state: ClusterState, before: number): string {
  if (state.nextJobId < before) return `nextJobId went back from ${before} to ${state.nextJobId}`;
  for (const [id, job] of state.jobs) {
    if (id !== job.info.jobId) return `job map key ${id} holds job ${job.info.jobId}`;
    if (id >= state.nextJobId) return `job ${id} not below nextJobId ${state.nextJobId}`;
  }
  return "";
}

const live = (job: JobRecord): boolean => job.info.state === "RUNNING" || job.info.state === "SUSPENDED";

function checkJobs(state: ClusterState): string {
  for (const job of state.jobs.values()) {
    const i = job.info;
    if (live(job)) {
      if (i.alloc.length === 0) return `job ${i.jobId} ${i.state} without an allocation`;
      for (const share of i.alloc) {
        const node = state.nodes.get(share.node);
        if (node === undefined) return `job ${i.jobId} on unknown node ${share.node}`;
        if (node.down) return `job ${i.jobId} ${i.state} on DOWN node ${share.node}`;
      }
      if (new Set(i.alloc.map((a) => a.node)).size !== i.alloc.length) return `job ${i.jobId} names a node twice`;
    } else if (i.state === "PENDING" && i.alloc.length > 0) {
      return `pending job ${i.jobId} holds an allocation`;
    } else if (!isJobFinished(i) && i.state !== "PENDING") {
      return `job ${i.jobId} in unknown state ${i.state}`;
    }
  }
  return "";
}

function checkNodes(state: ClusterState): string {
  for (const node of state.nodes.values()) {
    const name = node.info.name;
    let cpus = 0;
    let mem = 0;
    const gpus = new Map<number, number>();
    for (const job of state.jobs.values()) {
      if (!live(job)) continue;
      // A job suspended for a preemptor gave its CPUs and GPUs back; its memory stays.
      const released = job.info.state === "SUSPENDED" && job.suspendedBy !== undefined;
      for (const share of job.info.alloc) {
        if (share.node !== name) continue;
        mem += share.memMib;
        if (released) continue;
        cpus += share.cpus;
        for (const g of share.gpuIndices) {
          if (gpus.has(g)) return `GPU ${g} of ${name} held by jobs ${gpus.get(g)} and ${job.info.jobId}`;
          gpus.set(g, job.info.jobId);
        }
      }
    }
    if (node.info.allocCpus !== cpus) return `${name}: allocCpus ${node.info.allocCpus}, jobs hold ${cpus}`;
    if (node.info.allocMemoryMib !== mem) return `${name}: allocMemoryMib ${node.info.allocMemoryMib}, jobs hold ${mem}`;
    if (cpus > node.info.cpus) return `${name}: ${cpus} CPUs allocated of ${node.info.cpus}`;
    if (mem > node.info.realMemoryMib) return `${name}: ${mem} MiB allocated of ${node.info.realMemoryMib}`;
    for (const [jobId, ids] of node.gpuByJob) {
      for (const g of ids) {
        if (gpus.get(g) !== jobId) return `${name}: gpuByJob gives GPU ${g} to job ${jobId}`;
        if (g < 0 || g >= node.info.gpuCount) return `${name}: GPU index ${g} out of range`;
      }
    }
    const held = [...node.gpuByJob.values()].flat().length;
    if (held !== gpus.size) return `${name}: gpuByJob holds ${held} GPUs, jobs hold ${gpus.size}`;
    const cpuIds = Object.values(node.cpuIdsByJob ?? {}).flat();
    if (new Set(cpuIds).size !== cpuIds.length) return `${name}: a CPU id given to two jobs`;
  }
  return "";
}

function checkArrays(state: ClusterState): string {
  const seen = new Set<string>();
  const pendingTasks = new Map<number, Set<number>>();
  for (const job of state.jobs.values()) {
    const i = job.info;
    if (i.arrayJobId === 0) continue;
    if (job.arrayPending.length > 0 && i.state === "PENDING") {
      const p = job.arrayPending;
      for (let k = 1; k < p.length; k++) if ((p[k] as number) <= (p[k - 1] as number)) return `array ${i.arrayJobId}: pending tasks not sorted/unique: ${p.join(",")}`;
      if (i.arrayTaskStr !== formatArrayTasks(p, job.arrayThrottle)) return `array ${i.arrayJobId}: task string ${i.arrayTaskStr} for ${p.join(",")}`;
      pendingTasks.set(i.arrayJobId, new Set(p));
      continue;
    }
    if (job.arrayPending.length > 0) continue; // a finished remainder keeps what it had when it ended
    const key = `${i.arrayJobId}_${i.arrayTaskId}`;
    if (seen.has(key)) return `array task ${key} exists twice`;
    seen.add(key);
  }
  for (const key of seen) {
    const [array, task] = key.split("_").map(Number);
    if (pendingTasks.get(array as number)?.has(task as number)) return `array task ${key} both pending and split off`;
  }
  return "";
}
