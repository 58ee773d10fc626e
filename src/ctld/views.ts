/**
 * @module ctld/views
 * Read side of the controller: job, node and partition records as clients see
 * them. Pending reasons come from the last scheduling pass; finished jobs stay
 * visible to squeue for MinJobAge seconds, then leave the controller's memory
 * (sched/model/apply-purge.ts); sacct reads them from the archive (job-archive.ts).
 */
import { reservationNodeFlags } from "../sched/resv/types.ts";
import type { Plain } from "../lib/plain.ts";
import type { LicenseInfo } from "../net/gen/spur/v1/types_pb.ts";
import { licensesInUse } from "../sched/plan/licenses.ts";
import type { ListJobsRequest } from "../net/gen/spur/v1/controller_pb.ts";
import type { JobInfoP, JobRecord, NodeInfoP, PartitionInfoP } from "../sched/model/types.ts";
import { isJobFinished } from "../sched/model/types.ts";
import { dependencyNow, dependencyUnevaluated, type DepJobView } from "../compat/dependency.ts";
import type { Controller } from "./controller.ts";
import { hostlistUniq } from "../compat/hostlist.ts";
import { hasBeginTime } from "../compat/format/job-values.ts";
import { jobsNamed } from "../sched/model/job-table.ts";
import { preselected, preselectedUid, type SacctPreselection } from "../compat/format/sacct-select.ts";

/** Every job as dependency evaluation sees it (built once per listing). */
function depViews(c: Controller): DepJobView[] {
  return [...c.state.jobs.values()].map((job) => {
    const i = job.info;
    return {
      jobId: i.jobId, arrayJobId: i.arrayJobId, arrayTaskId: i.arrayTaskId, state: i.state,
      startTime: i.startTime, endTime: i.endTime, user: i.user, name: i.name, exitCode: i.exitCode,
      ...(job.arrayPending.length > 0 ? { pendingTasks: job.arrayPending } : {}),
    };
  });
}

/**
 * A job's Dependency as Slurm shows it: outstanding refs with (unfulfilled) or
 * (failed), `_*` for arrays; (null) once the job has started (Slurm clears it).
 */
function dependencyState(info: JobInfoP, all: () => DepJobView[], now: number, heldSinceSubmit: boolean): { shown: string; result: string } {
  if (info.startTime > 0) return { shown: "(null)", result: "satisfied" };
  const unevaluated = heldSinceSubmit ? dependencyUnevaluated(info.dependency, all()) : undefined;
  if (unevaluated !== undefined) return { shown: unevaluated, result: "pending" };
  const self = { user: info.user, name: info.name, jobId: info.jobId, arrayJobId: info.arrayJobId, arrayTaskId: info.arrayTaskId };
  return dependencyNow(info.dependency, self, all(), now) ?? { shown: info.dependency, result: "pending" };
}

/** Before the first scheduling pass sees a job, its dependency alone gives the reason (Slurm sets it at submit). */
const DEP_REASON: Record<string, string> = { pending: "Dependency", never: "DependencyNeverSatisfied" };

/**
 * A job as clients see it: Dependency as Slurm shows it, and for a pending job what the
 * last scheduling pass saw: its reason, the priority the pass ordered it by (so squeue %Q
 * and scontrol Priority= equal what the scheduler used) and, when backfill planned it,
 * the expected start and nodes.
 */
export function jobView(c: Controller, job: JobRecord, all?: () => DepJobView[], now = Date.now() / 1000): JobInfoP {
  const info = job.info;
  // submitted held and still held (priority 0): its dependency was never evaluated
  const heldSinceSubmit = job.spec.hold && info.state === "PENDING" && info.priority === 0;
  const dep = info.dependency === "" ? undefined : dependencyState(info, all ?? (() => depViews(c)), now, heldSinceSubmit);
  const withDep = dep === undefined ? info : { ...info, dependency: dep.shown };
  if (info.state !== "PENDING") return withDep;
  const reason = c.reasonOf(info.jobId) ?? (info.reason === "None" && dep ? DEP_REASON[dep.result] : undefined);
  const prio = c.priorityOf(info.jobId);
  const plan = c.plannedStart(info.jobId);
  const sameReason = reason === undefined || reason === info.reason;
  // Slurm shows a job waiting for its begin time as starting then (squeue --start), a held one
  // too (oracle: sbatch --hold --begin=now+60 has StartTime= its begin; differential seeds 13/194/279).
  const heldWithBegin = info.priority === 0 && hasBeginTime(info);
  const begin = plan === undefined && info.startTime === 0 && ((reason ?? info.reason) === "BeginTime" || heldWithBegin) ? info.eligibleTime : 0;
  if (sameReason && (prio === undefined || prio.priority === info.priority) && plan === undefined && begin === 0) return withDep;
  const view = { ...withDep };
  if (!sameReason) view.reason = reason;
  if (prio !== undefined) view.priority = prio.priority;
  if (begin > 0) view.startTime = begin;
  if (plan !== undefined) {
    view.startTime = plan.startTime;
    view.schedNodelist = hostlistUniq(plan.nodes);
  }
  return view;
}

/**
 * A job as the accounting store has it: slurmdbd keeps the job's comment only with
 * AccountingStoreFlags=job_comment (oracle: sacct's Comment is empty without it, set by
 * --comment or scontrol update alike).
 */
function accountingView(view: JobInfoP, dropComment: boolean): JobInfoP {
  return dropComment && view.comment !== "" ? { ...view, comment: "" } : view;
}

export function listJobViews(c: Controller, req: Plain<ListJobsRequest> | undefined, now: number): JobInfoP[] {
  const wanted = req && req.jobIds.length > 0 ? new Set(req.jobIds) : undefined;
  const minAge = c.state.config.minJobAgeSec;
  const commentStored = (c.state.config.accountingStoreFlags ?? []).includes("job_comment");
  const out: JobInfoP[] = [];
  let deps: DepJobView[] | undefined;
  const all = (): DepJobView[] => (deps ??= depViews(c));
  // Asked for some jobs: look them up by id (job-table), never walk the whole queue.
  const candidates = wanted ? jobsNamed(c.state.jobs, [...wanted]) : c.state.jobs.values();
  const shown = (view: JobInfoP): void => {
    const kept = accountingView(view, req?.accounting === true && !commentStored);
    out.push(req?.includeSteps || kept.steps.length === 0 ? kept : { ...kept, steps: [] });
  };
  // Accounting asks for finished jobs too: those purged after MinJobAge come from the archive
  // (older, so first), a live record winning over an archived one of the same id.
  if (req?.includeFinished && c.archive !== undefined) {
    const archived = c.archive.list({ jobIds: wanted ? [...wanted] : [], windowStart: req.windowStart, windowEnd: req.windowEnd });
    for (const info of archived) if (!c.state.jobs.has(info.jobId)) shown(info);
  }
  const sacct = req?.sacctQuery ? sacctPreselectionOf(req.sacctQuery) : undefined;
  // sacct of a user who sees only their own jobs: nobody else's record needs a view
  const onlyUid = sacct === undefined ? undefined : preselectedUid(sacct);
  for (const job of candidates) {
    const info = job.info;
    if (onlyUid !== undefined && info.uid !== onlyUid) continue;
    if (!req?.includeFinished && isJobFinished(info) && now - info.endTime > minAge) continue;
    if (req?.includeFinished && req.windowStart > 0 && info.endTime > 0 && info.endTime < req.windowStart) continue;
    if (req?.includeFinished && req.windowEnd > 0 && info.submitTime > req.windowEnd) continue;
    shown(jobView(c, job, all, now));
  }
  if (sacct === undefined) return out;
  try {
    return preselected(out, sacct, c.state.config.clusterName);
  } catch {
    return out; // a query of the right shape with values that are not: every record, sacct selects itself
  }
}

/**
 * sacct's query (ListJobsRequest.sacct_query), or undefined for text that is not one: the
 * records are then all sent, as to a client that asked for none.
 */
function sacctPreselectionOf(text: string): SacctPreselection | undefined {
  try {
    const p = JSON.parse(text) as SacctPreselection;
    const q = p?.query as unknown as Record<string, unknown> | undefined;
    const lists = ["users", "accounts", "jobIds", "names", "partitions", "qos", "states"];
    const valid = typeof p.invokerUid === "number" && typeof p.now === "number" && q !== undefined && typeof q === "object"
      && lists.every((k) => Array.isArray(q[k]) && (q[k] as unknown[]).every((v) => typeof v === "string"))
      && typeof q.nodelist === "string" && typeof q.allUsers === "boolean";
    return valid ? p : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Until when (epoch seconds, exclusive) the job views listed at `now` stay what they are if
 * nothing else changes: the clock alone hides a finished job after MinJobAge, and may settle
 * a pending job's dependency (evaluated against the time): then only within this second.
 * `jobIds` (a request for some jobs): only those jobs' records are read, as listJobViews reads
 * only theirs; at 50k jobs the walk over all of them was most of a `scontrol show job ID`
 * answer's 3.5 ms.
 */
export function viewsValidUntil(c: Controller, now: number, jobIds: readonly number[] = []): number {
  const minAge = c.state.config.minJobAgeSec;
  let until = Infinity;
  for (const job of jobIds.length > 0 ? jobsNamed(c.state.jobs, [...new Set(jobIds)]) : c.state.jobs.values()) {
    const info = job.info;
    if (info.dependency !== "" && info.startTime === 0) return Math.floor(now) + 1;
    if (isJobFinished(info)) {
      const hidden = info.endTime + minAge;
      if (hidden >= now && hidden < until) until = hidden;
    }
  }
  return until;
}

/**
 * `names` (not empty): only those nodes' views, in node-table order (ListNodesRequest.names);
 * `withoutNodes`: none (the partitions and licenses only).
 */
export function nodeViewsList(c: Controller, now: number, names: readonly string[] = [], withoutNodes = false): { nodes: NodeInfoP[]; partitions: PartitionInfoP[]; licenses: Plain<LicenseInfo>[] } {
  const reserved = reservationNodeFlags(c.state.reservations, now);
  const planned = c.plannedNodes();
  const wanted = names.length === 0 ? undefined : new Set(names);
  const records = withoutNodes ? [] : [...c.state.nodes.values()];
  const nodes = (wanted === undefined ? records : records.filter((n) => wanted.has(n.info.name))).map((n) => {
    const hb = c.lastHeartbeat(n.info.name);
    const load = c.nodeLoad(n.info.name);
    // Slurm's backfill flags the idle nodes it holds for a planned job: sinfo shows them "plnd".
    const plannedIdle = planned.has(n.info.name) && n.info.state === "IDLE" && n.info.allocCpus === 0;
    const extra = plannedIdle ? [...(reserved.get(n.info.name) ?? []), "PLANNED"] : reserved.get(n.info.name);
    if (hb === undefined && extra === undefined && load === undefined) return n.info;
    const flags = extra === undefined ? n.info.stateFlags : [...new Set([...n.info.stateFlags, ...extra])];
    return { ...n.info, stateFlags: flags, ...(hb === undefined ? {} : { lastHeartbeat: hb }), ...(load === undefined ? {} : { cpuLoad: load.cpuLoad, freeMemoryMib: load.freeMemoryMib }) };
  });
  return { nodes, partitions: c.state.partitions.map((p) => p.info), licenses: licenseViews(c.state) };
}

/** slurm.conf Licenses= with what running jobs hold now (scontrol show licenses, GET /licenses). */
function licenseViews(state: Controller["state"]): Plain<LicenseInfo>[] {
  const used = licensesInUse(state);
  return [...(state.licenses ?? new Map<string, number>())].map(([name, total]) => ({ name, total, used: used.get(name) ?? 0, reserved: 0 }));
}
