/**
 * @module ctld/views
 * Read side of the controller: job, node and partition records as clients see
 * them. Pending reasons come from the last scheduling pass; finished jobs stay
 * visible to squeue for MinJobAge seconds and to sacct for as long as the
 * controller keeps them.
 */
import type { Plain } from "../lib/plain.ts";
import type { ListJobsRequest } from "../net/gen/spur/v1/controller_pb.ts";
import type { JobInfoP, JobRecord, NodeInfoP, PartitionInfoP } from "../sched/model/types.ts";
import { isJobFinished } from "../sched/model/types.ts";
import type { Controller } from "./controller.ts";
import { hostlistUniq } from "../compat/hostlist.ts";

/**
 * A pending job as the last scheduling pass saw it: its reason, the priority
 * the pass ordered it by (so squeue %Q and scontrol Priority= equal what the
 * scheduler used) and, when backfill planned it, the expected start and nodes.
 */
export function jobView(c: Controller, job: JobRecord): JobInfoP {
  const info = job.info;
  if (info.state !== "PENDING") return info;
  const reason = c.reasonOf(info.jobId);
  const prio = c.priorityOf(info.jobId);
  const plan = c.plannedStart(info.jobId);
  const sameReason = reason === undefined || reason === info.reason;
  // Slurm shows a job waiting for its begin time as starting then (squeue --start).
  const begin = plan === undefined && info.startTime === 0 && (reason ?? info.reason) === "BeginTime" ? info.eligibleTime : 0;
  if (sameReason && (prio === undefined || prio.priority === info.priority) && plan === undefined && begin === 0) return info;
  const view = { ...info };
  if (!sameReason) view.reason = reason;
  if (prio !== undefined) view.priority = prio.priority;
  if (begin > 0) view.startTime = begin;
  if (plan !== undefined) {
    view.startTime = plan.startTime;
    view.schedNodelist = hostlistUniq(plan.nodes);
  }
  return view;
}

export function listJobViews(c: Controller, req: Plain<ListJobsRequest> | undefined, now: number): JobInfoP[] {
  const wanted = req && req.jobIds.length > 0 ? new Set(req.jobIds) : undefined;
  const minAge = c.state.config.minJobAgeSec;
  const out: JobInfoP[] = [];
  for (const job of c.state.jobs.values()) {
    const info = job.info;
    if (wanted && !wanted.has(info.jobId) && !wanted.has(info.arrayJobId)) continue;
    if (!req?.includeFinished && isJobFinished(info) && now - info.endTime > minAge) continue;
    if (req?.includeFinished && req.windowStart > 0 && info.endTime > 0 && info.endTime < req.windowStart) continue;
    if (req?.includeFinished && req.windowEnd > 0 && info.submitTime > req.windowEnd) continue;
    const view = jobView(c, job);
    out.push(req?.includeSteps || view.steps.length === 0 ? view : { ...view, steps: [] });
  }
  return out;
}

export function nodeViewsList(c: Controller): { nodes: NodeInfoP[]; partitions: PartitionInfoP[] } {
  const nodes = [...c.state.nodes.values()].map((n) => {
    const hb = c.lastHeartbeat(n.info.name);
    return hb === undefined ? n.info : { ...n.info, lastHeartbeat: hb };
  });
  return { nodes, partitions: c.state.partitions.map((p) => p.info) };
}
