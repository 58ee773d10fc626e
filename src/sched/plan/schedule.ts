/**
 * @module sched/plan/schedule
 * The scheduler's entry point, a pure function:
 *   schedule(snapshot, now, config, budget) -> { decisions, reasons, reservations, priorities, stats }
 * Phases: priority (plan/priority.ts) -> eligibility and QOS/association limits
 * (sched/acct/limits.ts, charged for every start in the pass) -> main pass (start jobs in
 * priority order; the first job of a partition that cannot start gets reason
 * Resources and blocks its partition, the jobs behind it get Priority) ->
 * backfill (sched/backfill only: up to bf_max_job_test of the blocked jobs, in
 * priority order, start now if they delay no reservation; jobs that cannot
 * start get a reservation within bf_window, up to bf_job_part_count_reserve per
 * partition). The snapshot is never changed; ties break by (priority,
 * submission order, job id), so the same snapshot and time give the same plan.
 */
import type { StartDecision } from "../model/commands.ts";
import type { ClusterState, JobRecord } from "../model/types.ts";
import type { NodeAllocState } from "../model/state-job-info.ts";
import { fitJob, type NodeView } from "./fit-node.ts";
import { jobRequest, switchWaitOver, type ResourceRequest } from "./request.ts";
import { eligibility, partitionReason, type DependencyIndex, buildDependencyIndex } from "./eligibility.ts";
import { expandHostlist, hostlistUniq } from "../../compat/hostlist.ts";
import { computePriorities, type JobWalkMemo, type Priorities, type PriorityContext } from "./priority.ts";
import { mapForIds } from "../../lib/id-map.ts";
import type { SchedConfig } from "./sched-config.ts";
import { INFINITE_END, Timeline } from "./timeline.ts";
import { commitReservation, commitStart, findReservation, fitsTogetherEver, gridShapeKey, newGrid, nodeViews, placeTogether, startNow, withFreeCpus, type ComponentAsk, type Grid, type Placement, type Reservation } from "./backfill.ts";
import { jobPartitions, partitionsByTier } from "../model/job-partitions.ts";
import { hetComponents, hetSize, isHetComponent } from "../model/het.ts";
import { holdGres } from "./gres-holds.ts";
import { assert } from "../../lib/assert.ts";
import { pendingQueue } from "./queue-order.ts";
import { OpenPartitions } from "./open-partitions.ts";
import { QueueFacts } from "./queue-facts.ts";
import { mustQueueHeld, settleHeld, summarizeHeld, withHeldQueued } from "./held-jobs.ts";
import { mustQueueBegin, settleBegin, withBeginQueued } from "./begin-jobs.ts";
import { LimitTracker } from "../acct/limits.ts";
import { resvNodeFilter, resvReason } from "../resv/resv-check.ts";
import { LicensePool, jobLicenseRequest } from "./licenses.ts";
import { licenseItemsText } from "../../compat/licenses.ts";

export type { Reservation } from "./backfill.ts";
export { nodeViews } from "./backfill.ts";

export interface ScheduleStats {
  /** Pending jobs at the start of the pass (sdiag "Last queue length"). */
  queueLength: number;
  /** Jobs the main pass looked at (sdiag "Mean depth cycle"). */
  mainExamined: number;
  mainStarted: number;
  /** Jobs the backfill pass tested (sdiag "Last depth cycle"). */
  bfExamined: number;
  /** Of which could be started at all (sdiag "Last depth cycle (try sched)"). */
  bfTrySched: number;
  backfilled: number;
  reservations: number;
  /** Slots in the timeline at the end of the pass (sdiag "Last table size"). */
  timelineSlots: number;
  /** Phase durations from the injected clock (0 without one): never used for decisions. */
  mainUs: number;
  bfUs: number;
  /** Back-compat names used by older callers and tests. */
  examined: number;
  started: number;
}

export interface ScheduleResult {
  decisions: StartDecision[];
  /** Pending reason per job id (jobs not started; with omitHeld not the held jobs whose reason is their hold). */
  reasons: Map<number, string>;
  /** Planned starts (squeue --start: StartTime and SchedNodes). */
  reservations: Reservation[];
  /** Priority of every pending job as this pass used it (squeue %Q, scontrol Priority=; with omitHeld not the held ones, 0). */
  priorities: Map<number, number>;
  /** What those priorities were computed from: explainPriority(job, it) gives sprio's factors. */
  priorityContext: PriorityContext | undefined;
  /** Pending jobs that can no longer end before their --deadline (the shell ends them: DEADLINE). */
  expired: number[];
  /**
   * Pending jobs whose dependency can never be satisfied and that asked to be killed for it
   * (--kill-on-invalid-dep=yes, or DependencyParameters=kill_invalid_depend): the shell cancels them.
   */
  invalidDeps: number[];
  /** With omitBegin: the pending jobs left out as waiting for their begin time (none when the pass queued them). */
  beginOmitted: number;
  stats: ScheduleStats;
}

export interface ScheduleBudget {
  maxJobsExamined: number;
  /** Monotonic clock in ms for phase statistics only (injected by the shell). */
  clockMs?: () => number;
  /**
   * Leave held jobs (priority 0) out of the queue, `reasons` (but DeadLine) and `priorities`:
   * their reason is heldReason(job), their priority 0 (plan/held-jobs.ts). The decisions are the
   * same; a queue of 100k held jobs then costs the pass no per-job sort or map entry. The controller sets it.
   */
  omitHeld?: boolean;
  /**
   * Leave pending jobs whose begin time is after `now` out of the queue, `reasons` (but DeadLine)
   * and `priorities`: their reason is BeginTime, their priority explainPriority's from
   * `priorityContext` (plan/begin-jobs.ts). The decisions are the same. The controller sets it.
   */
  omitBegin?: boolean;
  /** The caller's walk of the jobs, kept between passes while the state is unchanged (priority.ts JobWalkMemo). The controller keeps one. */
  walk?: JobWalkMemo;
}

const EMPTY_DEPS: DependencyIndex = { byId: new Map(), all: [] };

const expand = (h: string): string[] => {
  const r = expandHostlist(h);
  return r.ok ? r.value : [];
};

interface Pass {
  state: ClusterState;
  now: number;
  cfg: SchedConfig;
  placement: Placement;
  grid: Grid;
  index: Map<string, number>;
  partitionNodes: Map<string, number[]>;
  /** Per partition, nodes with a free CPU (compacted as nodes fill up). */
  freeNodes: Map<string, number[]>;
  decisions: StartDecision[];
  reasons: Map<number, string>;
  reservations: Reservation[];
  reservedPerPartition: Map<string, number>;
  expired: number[];
  runningPerArray: Map<number, number>;
  /** QOS and association limits, charged for every start this pass decides (sched/acct/limits.ts). */
  limits: LimitTracker;
  exclusivePartitions: Set<string>;
  partitionByName: Map<string, ClusterState["partitions"][number]>;
  /** Cluster-wide licenses over time: running jobs, this pass's starts and reservations hold them. */
  licenses: LicensePool;
}

export function schedule(
  state: ClusterState,
  now: number,
  config: SchedConfig = state.config.sched,
  budget: ScheduleBudget = { maxJobsExamined: config.maxJobsPerPass },
): ScheduleResult {
  const clock = budget.clockMs ?? (() => 0);
  const t0 = clock();
  let deps: DependencyIndex | undefined;
  const depsOf = (job: JobRecord): DependencyIndex => (job.spec.dependency ? (deps ??= buildDependencyIndex(state)) : EMPTY_DEPS);
  const facts = new QueueFacts(state, now, depsOf);
  let computed = computePriorities(state, now, config, budget.omitHeld === true, budget.omitBegin === true, facts.note, budget.walk);
  let heldSummary = summarizeHeld(computed.held);
  if (mustQueueHeld(computed, heldSummary, budget.maxJobsExamined)) {
    computed = withHeldQueued(computed);
    heldSummary = summarizeHeld([]);
  }
  if (mustQueueBegin(computed, budget.maxJobsExamined)) computed = withBeginQueued(computed);
  const { values: priorities, context: priorityContext, pending, pendingValues, held, begin } = computed;
  const { queue, left } = pendingQueue(state, pending, pendingValues, heldSummary.byPartition);
  const queueLength = queue.length + held.length + begin.length;
  const pass = newPass(state, now, config, computed);
  facts.complete(pending);
  /** Why queued job `i` may not start yet ("" = it may): as eligibility, limits and reservations answer now. */
  const whyNot = (i: number, job: JobRecord): string =>
    (facts.eligibility(i) ?? eligibility(state, job, now, depsOf(job), pass.runningPerArray)) || pass.limits.reason(job) || facts.reservationReason(i);
  const backfill = config.schedulerType === "sched/backfill";
  const deferred: JobRecord[] = [];
  /** Partitions (and lists of them) with jobs left in the queue that are not blocked. */
  const open = new OpenPartitions(left);
  const blocked = open.blocked;
  let mainExamined = 0;
  // the records are read only to try a job: what the loop asks of the others was noted (queue-facts.ts)
  for (let i = queue.nextIndex(); i >= 0; i = queue.nextIndex()) {
    const job = pending[i] as JobRecord;
    const id = facts.id(i);
    const key = facts.partition(i);
    open.take(key);
    if (mainExamined >= budget.maxJobsExamined) {
      pass.reasons.set(id, "Priority");
      continue;
    }
    // a het job's other components are decided with its leader (all or nothing)
    if (facts.hetFollower(i)) continue;
    mainExamined++;
    const why = whyNot(i, job);
    if (facts.expired(i)) {
      pass.expired.push(id);
      pass.reasons.set(id, "DeadLine");
    } else if (why !== "") {
      pass.reasons.set(id, why);
    } else if (open.closed(key)) {
      pass.reasons.set(id, "Priority");
      deferred.push(job);
    } else {
      const outcome = tryAny(pass, job, blocked);
      if (outcome === "blocked") {
        pass.reasons.set(id, blockedReason(pass, job));
        // a het job blocks no partition (Slurm's main scheduler leaves het jobs to backfill): one that can never
        // start whole (more exclusive nodes than there are) would otherwise hold back every job behind it
        if (!isHetComponent(job.info)) for (const partition of jobPartitions(job.info.partition)) open.block(partition);
        if (backfill) planFor(pass, job);
      } else if (outcome === "licenses" && backfill) {
        // waiting on a license does not block the partition (Slurm), but backfill keeps the licenses for it
        planReservation(pass, job);
      }
    }
    if (facts.hetComponent(i)) followLeader(pass, job);
    // No partition with jobs left can start anything in the main pass, and backfill has its depth.
    if (open.allClosed() && (backfill ? deferred.length >= config.bfMaxJobTest : true)) break;
  }
  // Every partition is blocked and backfill has its depth: the rest wait, in no particular order.
  for (const i of queue.restIndices()) {
    const id = facts.id(i);
    const why = whyNot(i, pending[i] as JobRecord);
    if (facts.expired(i)) {
      pass.expired.push(id);
      pass.reasons.set(id, "DeadLine");
    } else pass.reasons.set(id, why === "" ? "Priority" : why);
  }
  settleHeld(heldSummary, now, pass.reasons, pass.expired);
  settleBegin(computed.beginNoted, now, pass.reasons, pass.expired);
  const mainStarted = pass.decisions.length;
  const t1 = clock();
  const bf = config.schedulerType === "sched/backfill" ? backfillPass(pass, deferred) : { examined: 0, trySched: 0, started: 0 };
  const t2 = clock();
  const stats: ScheduleStats = {
    queueLength, mainExamined, mainStarted, bfExamined: bf.examined, bfTrySched: bf.trySched,
    backfilled: bf.started, reservations: pass.reservations.length, timelineSlots: pass.placement.timeline.size(),
    mainUs: Math.round((t1 - t0) * 1000), bfUs: Math.round((t2 - t1) * 1000),
    examined: mainExamined, started: pass.decisions.length,
  };
  pass.expired.sort((a, b) => a - b);
  const invalidDeps = killedForDependency(state, pass.reasons, config);
  if (priorityContext !== undefined) {
    for (const d of pass.decisions) {
      const p = priorities.get(d.jobId);
      if (p !== undefined) d.priority = p;
    }
  }
  return { decisions: pass.decisions, reasons: pass.reasons, reservations: pass.reservations, priorities, priorityContext, expired: pass.expired, invalidDeps, beginOmitted: begin.length, stats };
}

function backfillPass(pass: Pass, deferred: readonly JobRecord[]): { examined: number; trySched: number; started: number } {
  let examined = 0;
  let trySched = 0;
  let started = 0;
  for (const job of deferred) {
    if (examined >= pass.cfg.bfMaxJobTest) break;
    examined++;
    const before = pass.decisions.length;
    const outcome = tryAny(pass, job, NONE_BLOCKED);
    if (outcome !== "invalid") trySched++;
    started += pass.decisions.length - before;
    if (outcome === "started") pass.reasons.delete(job.info.jobId);
    else if (outcome === "blocked" || outcome === "licenses") planFor(pass, job);
    if (isHetComponent(job.info)) followLeader(pass, job);
  }
  return { examined, trySched, started };
}

/** The job's request in `partition`, with whole nodes in an OverSubscribe=EXCLUSIVE partition, never beyond the partition's MaxNodes. */
function requestFor(pass: Pass, job: JobRecord, partition = job.info.partition): ResourceRequest | string {
  const built = jobRequest(job, pass.state.config, expand);
  if (typeof built === "string") return built;
  const maxNodes = pass.partitionByName.get(partition)?.info.maxNodes;
  const req = maxNodes !== undefined && built.nodesMax > maxNodes ? { ...built, nodesMax: Math.max(built.nodesMin, maxNodes) } : built;
  if (req.exclusive) return req;
  return pass.exclusivePartitions.has(partition) ? { ...req, exclusive: true } : req;
}

const NONE_BLOCKED: ReadonlySet<string> = new Set();

/** A het component runs in its (first listed) partition: the components are placed together, not tried partition by partition. */
const homePartition = (job: JobRecord): string => jobPartitions(job.info.partition)[0] ?? job.info.partition;

/** The partitions a job tries, in order: its own, or of a list the unblocked ones by PriorityTier (job-partitions.ts). */
function partitionsToTry(pass: Pass, job: JobRecord, blocked: ReadonlySet<string>): string[] {
  const text = job.info.partition;
  if (!text.includes(",")) return [text];
  const tier = (name: string): number => pass.partitionByName.get(name)?.info.priorityTier ?? 1;
  // only those whose limits and state let it run (one with too short a MaxTime is passed over)
  const usable = jobPartitions(text).filter((p) => !blocked.has(p) && partitionReason(pass.state, job, p) === "");
  return partitionsByTier(usable, tier);
}

type Outcome = "started" | "blocked" | "throttled" | "invalid" | "licenses";

/** Start the job now if it can: a het job whole, a job of several partitions in the first of them that holds it. */
function tryAny(pass: Pass, job: JobRecord, blocked: ReadonlySet<string>): Outcome {
  if (isHetComponent(job.info)) return tryHet(pass, job);
  const partitions = partitionsToTry(pass, job, blocked);
  let outcome: Outcome = "blocked";
  for (const partition of partitions) {
    outcome = tryJob(pass, job, partition);
    if (outcome !== "blocked" && outcome !== "invalid") return outcome;
  }
  return outcome;
}

/**
 * A heterogeneous job, from its leader: every component starts now or none does (Slurm).
 * The leader's eligibility was checked by the caller; the other components' are checked here.
 */
function tryHet(pass: Pass, leader: JobRecord): Outcome {
  const components = hetComponents(pass.state.jobs, leader);
  if (components.length !== hetSize(leader.info) || components.some((c) => c.info.state !== "PENDING")) return "invalid";
  for (const c of components.slice(1)) {
    const deps = c.spec.dependency ? buildDependencyIndex(pass.state) : EMPTY_DEPS;
    const why = eligibility(pass.state, c, pass.now, deps, pass.runningPerArray) || pass.limits.reason(c) || resvReason(pass.state, c, pass.now);
    if (why !== "") {
      pass.reasons.set(leader.info.jobId, why);
      return "throttled";
    }
  }
  const asks = hetAsks(pass, components, (c) => withFreeCpus(pass.placement, [...(pass.freeNodes.get(homePartition(c)) ?? [])]));
  if (asks === undefined) return "invalid";
  const allocs = placeTogether(pass.placement, asks);
  if (allocs === undefined) return "blocked";
  const overLimit = components.map((c, k) => pass.limits.reason(c, allocs[k] ?? [])).find((r) => r !== "");
  if (overLimit !== undefined) {
    pass.reasons.set(leader.info.jobId, overLimit);
    return "throttled";
  }
  components.forEach((c, k) => {
    const alloc = allocs[k] ?? [];
    commitStart(pass.placement, pass.index, alloc, durationOf(c), asks[k]?.req.user);
    pass.limits.charge(c, alloc);
    pass.decisions.push({ jobId: c.info.jobId, arrayTaskId: -1, alloc });
  });
  pass.reasons.delete(leader.info.jobId);
  return "started";
}

/** Each component's request, duration and candidate nodes (from `nodesOf`, less those a reservation keeps off); undefined when one is malformed. */
function hetAsks(pass: Pass, components: readonly JobRecord[], nodesOf: (c: JobRecord) => number[]): ComponentAsk[] | undefined {
  const asks: ComponentAsk[] = [];
  for (const c of components) {
    const req = requestFor(pass, c, homePartition(c));
    if (typeof req === "string") return undefined;
    req.switchWaitOver = switchWaitOver(c.spec, c.info.eligibleTime || c.info.submitTime, pass.now);
    const durationSec = durationOf(c);
    const allowed = resvNodeFilter(pass.state, c, pass.now, durationSec);
    const nodes = nodesOf(c);
    asks.push({ req, durationSec, candidates: allowed === undefined ? nodes : nodes.filter((i) => allowed((pass.placement.views[i] as NodeView).name)) });
  }
  return asks;
}

/** The leader's outcome is every component's: its reason, or none once started. */
function followLeader(pass: Pass, leader: JobRecord): void {
  const why = pass.reasons.get(leader.info.jobId);
  for (const c of hetComponents(pass.state.jobs, leader).slice(1)) {
    if (why === undefined) pass.reasons.delete(c.info.jobId);
    else pass.reasons.set(c.info.jobId, why);
  }
}

/**
 * Backfill's plan for a job that cannot start now. A het job gets one reservation per
 * component, each at its own earliest start (Slurm's backfill records each component's
 * expected start), so that later jobs cannot starve it; it starts once all fit at once.
 */
function planFor(pass: Pass, job: JobRecord): void {
  if (!isHetComponent(job.info)) return planReservation(pass, job);
  const components = hetComponents(pass.state.jobs, job);
  const asks = hetAsks(pass, components, (c) => pass.partitionNodes.get(homePartition(c)) ?? []);
  if (asks === undefined || !fitsTogetherEver(pass.placement, asks)) return;
  for (const c of components) planReservation(pass, c);
}

/** Start as many of the job's tasks as fit now in `partition` (one unless an array). */
function tryJob(pass: Pass, job: JobRecord, partition: string): Outcome {
  const req = requestFor(pass, job, partition);
  if (typeof req === "string") return "invalid";
  req.switchWaitOver = switchWaitOver(job.spec, job.info.eligibleTime || job.info.submitTime, pass.now);
  const free = pass.freeNodes.get(partition);
  // a job listing several partitions names the one it starts in (apply checks it is one of them)
  const chosen = partition !== job.info.partition ? { partition } : {};
  const duration = durationOf(job);
  const allowed = resvNodeFilter(pass.state, job, pass.now, duration);
  const usable = free === undefined ? [] : withFreeCpus(pass.placement, free);
  const candidates = allowed === undefined ? usable : usable.filter((i) => allowed((pass.placement.views[i] as NodeView).name));
  const tasks = job.arrayPending.length > 0 ? arrayTasksAllowed(pass, job) : [job.info.arrayTaskId];
  let started = 0;
  let overLimit = "";
  const wantsLicenses = jobLicenseRequest(pass.state, job);
  const licenseEnd = endOf(pass, pass.now, duration);
  let licensesShort = false;
  for (const taskId of tasks) {
    // licenses first, as Slurm tests them before the nodes (reason Licenses)
    const licenses = wantsLicenses === undefined ? [] : pass.licenses.choose(wantsLicenses, pass.now, licenseEnd);
    if (licenses === undefined) {
      licensesShort = true;
      break;
    }
    const alloc = startNow(pass.placement, req, candidates, duration);
    if (alloc === undefined) break;
    overLimit = pass.limits.reason(job, alloc);
    if (overLimit !== "") break;
    commitStart(pass.placement, pass.index, alloc, duration, req.user);
    pass.limits.charge(job, alloc);
    pass.licenses.hold(licenses, pass.now, licenseEnd);
    pass.decisions.push({ jobId: job.info.jobId, arrayTaskId: taskId, alloc, ...chosen, ...(licenses.length > 0 ? { licenses: licenseItemsText(licenses) } : {}) });
    started++;
    if (job.arrayPending.length > 0) pass.runningPerArray.set(job.info.arrayJobId, (pass.runningPerArray.get(job.info.arrayJobId) ?? 0) + 1);
  }
  const remaining = Math.max(1, job.arrayPending.length) - started;
  if (remaining <= 0) {
    pass.reasons.delete(job.info.jobId);
    return "started";
  }
  if (licensesShort) {
    pass.reasons.set(job.info.jobId, "Licenses");
    return "licenses";
  }
  // A job held back by a limit waits for the limit, and does not block its partition.
  if (overLimit !== "") {
    pass.reasons.set(job.info.jobId, overLimit);
    return "throttled";
  }
  // Every task the throttle allowed has started: the rest wait for the throttle, not for resources.
  if (started === tasks.length) {
    pass.reasons.set(job.info.jobId, "JobArrayTaskLimit");
    return "throttled";
  }
  return "blocked";
}

/**
 * Why the first job of a partition cannot start: Resources when the usable
 * nodes could hold it once free; otherwise the nodes it needs are down,
 * drained or not registered, which Slurm reports as ReqNodeNotAvail with the
 * unavailable nodes of the partition.
 */
function blockedReason(pass: Pass, job: JobRecord): string {
  const views = pass.placement.views;
  const down = new Set<string>();
  // of a list: Resources when any listed partition could hold it once free
  for (const partition of jobPartitions(job.info.partition)) {
    const req = requestFor(pass, job, partition);
    if (typeof req === "string") return "Resources";
    const nodes = pass.partitionNodes.get(partition) ?? [];
    const usable = nodes.map((i) => views[i] as NodeView).filter((v) => v.usable);
    if (fitJob(req, usable, "ever") !== undefined) return "Resources";
    for (const i of nodes) if (!(views[i] as NodeView).usable) down.add((views[i] as NodeView).name);
  }
  return down.size === 0 ? "Resources" : `ReqNodeNotAvail, UnavailableNodes:${hostlistUniq([...down])}`;
}

/**
 * Backfill's reservation: the earliest start in the job's partition (of a list, in whichever listed
 * partition starts it first; ties go to the order it tries them in), held on the timeline.
 */
function planReservation(pass: Pass, job: JobRecord): void {
  const limit = pass.cfg.bfJobPartCountReserve;
  const duration = durationOf(job);
  const licenses = jobLicenseRequest(pass.state, job);
  const licensesFree = (t: number): boolean => licenses === undefined || pass.licenses.choose(licenses, t, endOf(pass, t, duration)) !== undefined;
  let best: { startTime: number; alloc: NodeAllocState[]; partition: string; made: number } | undefined;
  for (const partition of partitionsToTry(pass, job, NONE_BLOCKED)) {
    const made = pass.reservedPerPartition.get(partition) ?? 0;
    if (limit > 0 && made >= limit) continue;
    const req = requestFor(pass, job, partition);
    if (typeof req === "string") continue;
    const candidates = pass.partitionNodes.get(partition) ?? [];
    const shapeKey = `${partition}|${duration}|${gridShapeKey(req)}`;
    const found = findReservation(pass.placement, pass.grid, shapeKey, req, candidates, duration, licensesFree);
    if (found !== undefined && (best === undefined || found.startTime < best.startTime)) best = { ...found, partition, made };
  }
  if (best === undefined) return;
  const { partition, made } = best;
  const planned = { startTime: best.startTime, alloc: best.alloc };
  commitReservation(pass.placement, planned, duration);
  if (licenses !== undefined) {
    const end = endOf(pass, planned.startTime, duration);
    pass.licenses.hold(pass.licenses.choose(licenses, planned.startTime, end) ?? [], planned.startTime, end);
  }
  assert(planned.startTime >= pass.now, "a reservation starts no earlier than now");
  pass.reservedPerPartition.set(partition, made + 1);
  pass.reservations.push({ jobId: job.info.jobId, startTime: planned.startTime, nodes: planned.alloc.map((s) => s.node) });
}

/** When a start at `start` for `duration` ends, on the timeline's grid (as node holds end). */
function endOf(pass: Pass, start: number, duration: number): number {
  return duration === INFINITE_END ? INFINITE_END : pass.placement.timeline.roundEnd(start + duration);
}

function durationOf(job: JobRecord): number {
  const limit = job.info.timeLimitMin;
  return limit === undefined ? INFINITE_END : Math.max(60, limit * 60);
}

/** Pending array tasks that the throttle (%N) lets start now, in index order. */
function arrayTasksAllowed(pass: Pass, job: JobRecord): number[] {
  if (job.arrayThrottle === 0) return [...job.arrayPending];
  const running = pass.runningPerArray.get(job.info.arrayJobId) ?? 0;
  return job.arrayPending.slice(0, Math.max(0, job.arrayThrottle - running));
}

/**
 * From `computed`: the pending ids, the running and suspended jobs (the only ones that hold nodes and
 * licenses and count against limits now) and whether any asked --exclusive=user, all noted in its walk.
 */
function newPass(state: ClusterState, now: number, cfg: SchedConfig, computed: Priorities): Pass {
  const { ids, active } = computed;
  const views = [...nodeViews(state, true, computed.exclusiveUser).values()];
  const index = new Map<string, number>();
  views.forEach((v, i) => index.set(v.name, i));
  const timeline = new Timeline(now, cfg.bfResolutionSec, views.map((v) => ({ cpus: v.cpus, memMiB: v.memMiB, gpus: v.gpuCount })));
  const runningPerArray = new Map<number, number>();
  const gresHolds: [number, number, string][] = [];
  for (const job of active) {
    const info = job.info;
    if (info.arrayJobId !== 0 && info.state === "RUNNING") runningPerArray.set(info.arrayJobId, (runningPerArray.get(info.arrayJobId) ?? 0) + 1);
    const end = info.timeLimitMin === undefined ? INFINITE_END : timeline.roundEnd(Math.max(now, info.startTime + info.timeLimitMin * 60));
    for (const share of info.alloc) {
      const i = index.get(share.node);
      // A suspended job holds its memory only (PreemptMode=SUSPEND).
      const held = info.state === "SUSPENDED" && job.suspendedBy !== undefined ? 0 : 1;
      if (i !== undefined) timeline.add(i, { start: now, end, cpus: share.cpus * held, memMiB: share.memMib, gpus: share.gpuIndices.length * held });
      if (i !== undefined && share.gres) gresHolds.push([i, end, share.gres]);
    }
  }
  // Slurm allocates the lowest node Weight first; equal weights keep the partition's order.
  const weights = new Float64Array(views.length);
  views.forEach((v, i) => (weights[i] = v.weight ?? 1));
  // a node's (last) position in the partition being sorted; entries of other partitions are never read
  const position = new Int32Array(views.length);
  const partitionNodes = new Map<string, number[]>();
  for (const p of state.partitions) {
    const members: number[] = [];
    for (const n of p.nodeNames) {
      const i = index.get(n);
      if (i !== undefined) members.push(i);
    }
    members.forEach((i, k) => (position[i] = k));
    members.sort((a, b) => (weights[a] as number) - (weights[b] as number) || (position[a] as number) - (position[b] as number));
    partitionNodes.set(p.info.name, members);
  }
  const placement: Placement = { views, timeline, reserved: new Set(), topology: state.topology, index };
  for (const [i, end, gres] of gresHolds) holdGres(placement, i, now, end, gres);
  return {
    state, now, cfg, placement, index, partitionNodes,
    grid: newGrid(cfg.bfWindowMin * 60, cfg.bfResolutionSec),
    freeNodes: new Map([...partitionNodes].map(([name, nodes]) => [name, nodes.filter((i) => (views[i] as NodeView).freeCpus > 0)])),
    decisions: [], reasons: mapForIds<string>(ids.lo, ids.hi, ids.count), reservations: [], reservedPerPartition: new Map(), runningPerArray, expired: [],
    limits: new LimitTracker(state, now, active),
    licenses: LicensePool.of(state, now, (job) => (job.info.timeLimitMin === undefined ? INFINITE_END : timeline.roundEnd(Math.max(now, job.info.startTime + job.info.timeLimitMin * 60))), active),
    exclusivePartitions: new Set(state.partitions.filter((p) => p.info.oversubscribe.startsWith("EXCLUSIVE")).map((p) => p.info.name)),
    partitionByName: new Map(state.partitions.map((p) => [p.info.name, p])),
  };
}

/** Jobs this pass found DependencyNeverSatisfied that are to be cancelled for it, in id order. */
function killedForDependency(state: ClusterState, reasons: ReadonlyMap<number, string>, config: SchedConfig): number[] {
  const out: number[] = [];
  // forEach, not for-of: an IdMap's forEach is a plain loop over its slots (no iterator objects for 100k entries)
  reasons.forEach((why, id) => {
    if (why !== "DependencyNeverSatisfied") return;
    const job = state.jobs.get(id);
    // the job's own --kill-on-invalid-dep=no wins over the site's kill_invalid_depend (Slurm's job flag)
    if (job !== undefined && (job.spec.killOnInvalidDep || (config.killInvalidDepend && job.spec.noKillOnInvalidDep !== true))) out.push(id);
  });
  return out.sort((a, b) => a - b);
}
