/**
 * @module sched/plan/preempt
 * Preemption, planned after a scheduling pass: for the highest-priority job
 * that waits for resources, pick running jobs it may preempt — PreemptType
 * preempt/partition_prio: jobs in partitions of a lower PriorityTier;
 * preempt/qos: jobs whose QOS is in the waiting job's QOS Preempt list —
 * lowest priority and most recently started first, until the job would fit
 * on its partition's nodes. The plan becomes a `preempt` command; apply ends
 * the victims by PreemptMode (REQUEUE: back to PENDING; CANCEL: state
 * PREEMPTED), with GraceTime (partition's, or the QOS's under preempt/qos) as
 * the time between SIGTERM and SIGKILL. One preemption is in flight at a time,
 * so a pass never preempts twice for the same resources.
 * SUSPEND (Slurm pairs it with GANG): victims are stopped (SIGSTOP) and keep
 * their memory; their CPUs and GPUs go to the preemptor, which the same plan
 * starts (`start`: its allocation, computed with the victims' CPUs/GPUs free
 * but their memory still held), so no other job can take them in between.
 * A plan never mixes SUSPEND victims with ending ones. Pure.
 */
import type { ClusterState, JobRecord } from "../model/types.ts";
import { runsBatchScript } from "../model/het.ts";
import { nodeViews } from "./backfill.ts";
import { buildRequest } from "./request.ts";
import { fitJob, type NodeView } from "./fit-node.ts";
import { expandHostlist } from "../../compat/hostlist.ts";
import type { StartDecision } from "../model/commands.ts";
import { jobPartitions, partitionsByTier } from "../model/job-partitions.ts";
import { parseGresItems } from "../../compat/gres-generic.ts";
import { releaseGres, releaseSharing } from "./gres-fit.ts";
import type { PreemptConfig, PreemptMode } from "./preempt-config.ts";

export interface PreemptPlan {
  preemptorId: number;
  victims: { jobId: number; mode: "REQUEUE" | "CANCEL" | "SUSPEND"; graceSec: number }[];
  /** SUSPEND plans: the preemptor's start decision on the suspended victims' CPUs/GPUs. */
  start?: StartDecision;
}

/** Candidate preemptors examined per pass at most. */
const PREEMPTORS_MAX = 16;

const expand = (h: string): string[] => {
  const r = expandHostlist(h);
  return r.ok ? r.value : [];
};

export function planPreemption(state: ClusterState, reasons: ReadonlyMap<number, string>, priorities: ReadonlyMap<number, number>): PreemptPlan | undefined {
  const cfg = state.config.preempt;
  if (cfg.type === "preempt/none") return undefined;
  const running: JobRecord[] = [];
  for (const job of state.jobs.values()) {
    if (job.info.state !== "RUNNING") continue;
    if (job.preemptedBy !== undefined) return undefined; // wait for the one in flight
    if (job.endRequested === "") running.push(job);
  }
  const prio = (job: JobRecord): number => priorities.get(job.info.jobId) ?? job.info.priority;
  // from the pass's reasons, not every job: a queue of 100k held jobs has none to copy here
  const candidates: JobRecord[] = [];
  reasons.forEach((why, id) => {
    if (why !== "Resources" && why !== "Priority") return;
    const job = state.jobs.get(id);
    if (job !== undefined && job.info.state === "PENDING") candidates.push(job);
  });
  const waiting = candidates
    .sort((a, b) => prio(b) - prio(a) || a.sequence - b.sequence || a.info.jobId - b.info.jobId)
    .slice(0, PREEMPTORS_MAX);
  for (const job of waiting) {
    const plan = victimsFor(state, job, running);
    if (plan !== undefined) return plan;
  }
  return undefined;
}

function tierOf(state: ClusterState, partition: string): number {
  return state.partitions.find((p) => p.info.name === partition)?.info.priorityTier ?? 1;
}

/** Whether `preemptor`, starting in `partition`, may preempt `victim`. */
function canPreempt(state: ClusterState, preemptor: JobRecord, partition: string, victim: JobRecord): boolean {
  if (state.config.preempt.type === "preempt/partition_prio") return tierOf(state, partition) > tierOf(state, victim.info.partition);
  const q = state.acct.qos.get(preemptor.info.qos);
  return q !== undefined && q.preempt.includes(victim.info.qos);
}

function modeFor(state: ClusterState, victim: JobRecord): { mode: PreemptMode; graceSec: number } {
  const cfg = state.config.preempt;
  const partition = state.partitions.find((p) => p.info.name === victim.info.partition);
  if (cfg.type === "preempt/qos") {
    const q = state.acct.qos.get(victim.info.qos);
    const own = q?.preemptMode ?? "cluster";
    const mode = own === "cluster" ? cfg.mode : (own.toUpperCase() as PreemptMode);
    return { mode, graceSec: q?.graceTimeSec ?? 0 };
  }
  return { mode: cfg.mode, graceSec: partition?.info.graceTimeSec ?? 0 };
}

/** Victims that let the job start: of a list (`-p a,b`), in the first listed partition by PriorityTier where some do. */
function victimsFor(state: ClusterState, job: JobRecord, running: readonly JobRecord[]): PreemptPlan | undefined {
  for (const partition of partitionsByTier(jobPartitions(job.info.partition), (p) => tierOf(state, p))) {
    const plan = victimsIn(state, job, running, partition);
    if (plan !== undefined) return plan;
  }
  return undefined;
}

function victimsIn(state: ClusterState, job: JobRecord, running: readonly JobRecord[], partition: string): PreemptPlan | undefined {
  const req = buildRequest(job.spec, state.config, expand);
  if (typeof req === "string") return undefined;
  const members = new Set(state.partitions.find((p) => p.info.name === partition)?.nodeNames ?? []);
  const eligible = running
    .filter((v) => canPreempt(state, job, partition, v) && v.info.alloc.some((a) => members.has(a.node)))
    .sort((a, b) => a.info.priority - b.info.priority || b.info.startTime - a.info.startTime || b.info.jobId - a.info.jobId);
  const suspendable = eligible.filter((v) => modeFor(state, v).mode === "SUSPEND");
  const endable = eligible.filter((v) => {
    const m = modeFor(state, v).mode;
    return m === "CANCEL" || (m === "REQUEUE" && runsBatchScript(v.info));
  });
  const plan = chooseVictims(state, job, req, members, suspendable, true) ?? chooseVictims(state, job, req, members, endable, false);
  // a suspending plan starts the job at once: in this partition, when it lists several
  if (plan?.start !== undefined && partition !== job.info.partition) plan.start.partition = partition;
  return plan;
}

function chooseVictims(
  state: ClusterState, job: JobRecord, req: Exclude<ReturnType<typeof buildRequest>, string>, members: ReadonlySet<string>,
  candidates: readonly JobRecord[], suspend: boolean,
): PreemptPlan | undefined {
  if (candidates.length === 0) return undefined;
  const views = [...nodeViews(state).values()].filter((v) => members.has(v.name)).map((v) => ({ ...v, freeGpus: [...v.freeGpus] }));
  const byName = new Map(views.map((v) => [v.name, v]));
  const chosen: JobRecord[] = [];
  for (const victim of candidates) {
    for (const share of victim.info.alloc) {
      const v = byName.get(share.node);
      if (v === undefined) continue;
      // A suspended victim keeps its memory.
      // a suspended victim keeps its memory and its counted GRES (the start check counts them held)
      release(v, suspend ? { ...share, memMib: 0, gres: undefined } : share);
    }
    chosen.push(victim);
    const alloc = fitJob(req, views, "now");
    if (alloc !== undefined) {
      const victims = chosen.map((c) => {
        const m = modeFor(state, c);
        const mode: "REQUEUE" | "CANCEL" | "SUSPEND" = m.mode === "REQUEUE" || m.mode === "SUSPEND" ? m.mode : "CANCEL";
        return { jobId: c.info.jobId, mode, graceSec: m.graceSec };
      });
      if (!suspend) return { preemptorId: job.info.jobId, victims };
      const arrayTaskId = job.arrayPending.length > 0 ? (job.arrayPending[0] as number) : job.info.arrayTaskId;
      return { preemptorId: job.info.jobId, victims, start: { jobId: job.info.jobId, arrayTaskId, alloc } };
    }
  }
  return undefined;
}

function release(v: NodeView, share: { cpus: number; memMib: number; gpuIndices: readonly number[]; gres?: string | undefined }): void {
  v.freeCpus += share.cpus;
  v.freeMemMiB += share.memMib;
  v.freeGpus.push(...share.gpuIndices);
  // the victim's counted GRES come back too, and a GPU its shards left is whole-free again
  const items = parseGresItems(share.gres ?? "");
  if (items.length > 0 && v.gresFree && v.gresTotal) v.gresFree = releaseGres(v.gresFree, v.gresTotal, [items]);
  if (items.length > 0 && v.sharingUsed) {
    const sharing = releaseSharing(v.sharingUsed, [items]);
    v.sharingUsed = sharing.used;
    v.freeGpus.push(...sharing.freed);
  }
  v.freeGpus.sort((a, b) => a - b);
  v.idle = v.freeCpus === v.cpus && v.freeGpus.length === v.gpuCount;
}
