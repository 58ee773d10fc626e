/**
 * @module sched/plan/priority
 * Job priority, computed from a state snapshot at `now`. priority/basic keeps
 * the value set at submission (earlier jobs first, minus nice). priority/
 * multifactor sums weighted factors, each normalised to [0, 1] as Slurm defines
 * them: age (time eligible, capped at PriorityMaxAge), fair share (fair tree
 * over associations, sched/acct/fair-tree.ts; with PriorityFlags=NO_FAIR_TREE
 * 2^(-U/S) over users), usage decayed by PriorityDecayHalfLife, job size (mean of the
 * shares of the cluster's nodes and CPUs; of those left free with PriorityFavorSmall), partition
 * (PriorityJobFactor over the largest one), QOS and association (their
 * Priority= over the largest, from sacctmgr's records), TRES (requested share of the partition's TRES),
 * minus nice. A held job has priority 0; an administrator's value is kept as set.
 * The result carries every factor so that `sprio` shows what the scheduler used.
 */
import type { ClusterState, JobRecord, PartitionRecord } from "../model/types.ts";
import type { SchedConfig } from "./sched-config.ts";
import { assert } from "../../lib/assert.ts";
import { mapForIds } from "../../lib/id-map.ts";
import { assocPriorityOf, fairShareKey, fairTree, qosFactors } from "../acct/fair-tree.ts";
import { jobPartitions } from "../model/job-partitions.ts";
import { isHetComponent } from "../model/het.ts";
import { decaySince } from "../acct/purged-usage.ts";

/** Normalised factors in [0, 1] (tres: per TRES name). */
export interface PriorityFactors {
  age: number;
  assoc: number;
  fairshare: number;
  jobSize: number;
  partition: number;
  qos: number;
  tres: Record<string, number>;
}

export interface JobPriority {
  jobId: number;
  /** What the scheduler orders by (and squeue %Q / scontrol Priority= show). */
  priority: number;
  factors: PriorityFactors;
  nice: number;
  /** True when an administrator set the value (shown as the SITE column by sprio). */
  fixed: boolean;
}

const NO_TRES: Record<string, number> = Object.freeze({}) as Record<string, number>;
const ZERO_FACTORS: Readonly<PriorityFactors> = Object.freeze({ age: 0, assoc: 0, fairshare: 0, jobSize: 0, partition: 0, qos: 0, tres: NO_TRES });

/** Lowest priority a runnable job gets (0 means held, as in Slurm). */
export const PRIORITY_MIN = 1;
/** Highest priority a job gets (Slurm's 32-bit range less its special values). */
export const PRIORITY_MAX = 0xffff_fffe;

/** What a pass computed priorities from: kept so that `sprio` can show the same factors later. */
export type PriorityContext = Context;

interface Context {
  cfg: SchedConfig;
  now: number;
  totalNodes: number;
  totalCpus: number;
  maxPartitionFactor: number;
  partitions: Map<string, PartitionRecord>;
  partitionTres: Map<string, { cpu: number; mem: number; node: number; gpu: number }>;
  fairshareByUser: Map<string, number>;
  tresNames: string[];
  /** QOS and association factors from the accounting records (sched/acct). */
  qosFactor: Map<string, number>;
  assocFactor: (job: JobRecord) => number;
  /** fairshareByUser's answer per user, then account: memoised so that 100k jobs build no key strings. */
  fairshareMemo: Map<string, Map<string, number>>;
}

export interface Priorities {
  /** Priority of every pending job by id: what the pass orders by. */
  values: Map<number, number>;
  /** The factors' inputs (undefined under priority/basic), for explainPriority. */
  context: PriorityContext | undefined;
  /** The pending jobs in the state's iteration order, and their priorities index-aligned (what `values` holds). */
  pending: JobRecord[];
  pendingValues: Float64Array;
  /** With `omitHeld`: the held pending jobs (priority 0), in none of the above. Otherwise empty. */
  held: JobRecord[];
  /** With `omitBegin`: the pending jobs not held whose begin time is after `now` (plan/begin-jobs.ts), in none of the above, their priorities not computed. Otherwise empty. */
  begin: JobRecord[];
  /** Of `begin`, those with a deadline or in a het job: the only ones the pass looks at again (plan/begin-jobs.ts). */
  beginNoted: JobRecord[];
  /** The ids of `pending` (the jobs whose priorities are computed): lowest, highest, how many (for maps of them, lib/id-map.ts). */
  ids: { lo: number; hi: number; count: number };
  /**
   * The running and suspended jobs (those holding nodes), in the state's iteration order: noted in
   * the same walk, so that the pass does not walk 100k pending records again to find a few thousand.
   */
  active: JobRecord[];
  /**
   * Whether a queued job or one holding nodes asked --exclusive=user (user-exclusive.ts
   * anyExclusiveUser's answer), noted in the same walk: that scan read every job's spec again.
   */
  exclusiveUser: boolean;
}

/**
 * What a pass reads of every job that depends on the state alone (not on `now`): the pending jobs
 * it may queue and the held ones, in table order, the running and suspended ones, those that ever
 * started, and whether any asked --exclusive=user. One walk over every job makes it.
 */
export interface JobWalk {
  /** Pending jobs not left out as held: the queue, less those still waiting for their begin time. */
  queued: JobRecord[];
  held: JobRecord[];
  active: JobRecord[];
  started: JobRecord[];
  exclusiveUser: boolean;
}

/**
 * A caller's walk kept between passes: good while the state's applied index is the one it was
 * made at, since every change of the state is an applied command and moves that index (a
 * snapshot restore sets it to the image's). The controller keeps one (ctld/sched-loop.ts): an
 * idle controller with 100k held jobs walked them all every second for the same lists. Only a
 * caller whose state changes through apply() alone may keep one; the arrays are read, never
 * changed, by the pass.
 */
export interface JobWalkMemo {
  appliedIndex: number;
  omitHeld: boolean;
  walk: JobWalk | undefined;
}

export function newJobWalkMemo(): JobWalkMemo {
  return { appliedIndex: -1, omitHeld: false, walk: undefined };
}

/** The queued jobs as one pass at `now` sees them: to queue, or left out until their begin time. */
class QueueSplit {
  readonly pending: JobRecord[] = [];
  readonly begin: JobRecord[] = [];
  readonly beginNoted: JobRecord[] = [];
  readonly ids = { lo: Number.POSITIVE_INFINITY, hi: Number.NEGATIVE_INFINITY, count: 0 };

  constructor(
    private readonly now: number,
    private readonly omitBegin: boolean,
  ) {}

  add(job: JobRecord): void {
    const info = job.info;
    // a held job's reason is its hold even before its begin time (eligibility): held, not waiting for its begin time
    if (this.omitBegin && info.priority !== 0 && info.eligibleTime > this.now) {
      this.begin.push(job);
      // noted in this walk, so that the pass need not walk 100k of them again
      if (info.deadline > 0 || isHetComponent(info)) this.beginNoted.push(job);
      return;
    }
    this.pending.push(job);
    // the pass's maps are sized for the jobs it queues: with 100k held jobs, slots for them all were
    // allocated and left each pass for nothing (a map takes any other id too, in a plain Map beside)
    const id = info.jobId;
    const ids = this.ids;
    if (id < ids.lo) ids.lo = id;
    if (id > ids.hi) ids.hi = id;
    ids.count++;
  }
}

/** One walk over every job; each queued one also goes to `split` then, so that a pass without a kept walk reads each record once. */
function walkJobs(state: ClusterState, omitHeld: boolean, split: QueueSplit): JobWalk {
  const queued: JobRecord[] = [];
  const held: JobRecord[] = [];
  const active: JobRecord[] = [];
  // jobs that ever started, the only ones fair tree charges usage for: with 100k queued, a walk of them all was ~5% of a pass
  const started: JobRecord[] = [];
  let exclusiveUser = false;
  for (const job of state.jobs.values()) {
    const info = job.info;
    if (info.startTime > 0) started.push(job);
    if (info.state !== "PENDING") {
      if (info.state === "RUNNING" || info.state === "SUSPENDED") {
        active.push(job);
        if (!exclusiveUser && job.spec.exclusiveUser === true) exclusiveUser = true;
      }
      continue;
    }
    if (!exclusiveUser && job.spec.exclusiveUser === true) exclusiveUser = true;
    // a held job's priority is 0 whatever the factors (priorityValue): nothing to compute
    if (omitHeld && info.priority === 0) held.push(job);
    else {
      queued.push(job);
      split.add(job);
    }
  }
  return { queued, held, active, started, exclusiveUser };
}

/**
 * Priority of every pending job. Only numbers are kept (one scratch factor
 * object is reused), so 100k jobs cost no allocation per job; explainPriority
 * rebuilds the factors of one job from the same context on demand.
 * `notePending`: called with each job of `pending`, in order, while its priority is worked out
 * (the pass notes what it needs of it then, plan/queue-facts.ts). `memo`: the caller's walk of
 * the jobs, reused while the state has not changed (JobWalkMemo).
 */
export function computePriorities(state: ClusterState, now: number, cfg: SchedConfig, omitHeld = false, omitBegin = false, notePending?: (job: JobRecord) => void, memo?: JobWalkMemo): Priorities {
  const split = new QueueSplit(now, omitBegin);
  let walk: JobWalk;
  if (memo !== undefined && memo.walk !== undefined && memo.appliedIndex === state.appliedIndex && memo.omitHeld === omitHeld) {
    walk = memo.walk;
    for (const job of walk.queued) split.add(job);
  } else {
    walk = walkJobs(state, omitHeld, split);
    if (memo !== undefined) {
      memo.walk = walk;
      memo.appliedIndex = state.appliedIndex;
      memo.omitHeld = omitHeld;
    }
  }
  const { held, active, started, exclusiveUser } = walk;
  const { pending, begin, beginNoted, ids } = split;
  const context = cfg.priorityType === "priority/multifactor" ? buildContext(state, now, cfg, started) : undefined;
  const values = mapForIds<number>(ids.lo, ids.hi, ids.count);
  const pendingValues = priorityValues(pending, context, values, notePending);
  return { values, context, pending, pendingValues, held, begin, beginNoted, ids, active, exclusiveUser };
}

/** Each job's priority from `ctx`, index-aligned, also set in `into` by job id. */
export function priorityValues(jobs: readonly JobRecord[], ctx: PriorityContext | undefined, into: Map<number, number>, visit?: (job: JobRecord) => void): Float64Array {
  const scratch: PriorityFactors = { ...ZERO_FACTORS };
  const out = new Float64Array(jobs.length);
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[i] as JobRecord;
    const p = priorityValue(job, ctx, scratch);
    out[i] = p;
    into.set(job.info.jobId, p);
    visit?.(job);
  }
  return out;
}

/**
 * True when, over the same state, a job waiting for its begin time gets the same priority from
 * `a` as from `b` (what a pass left such jobs' priorities to, plan/begin-jobs.ts). Of a
 * context's inputs only fair share moves with time alone (usage decays); the age factor is 0
 * for such a job; everything else is read from the state.
 */
export function sameWaitingFactors(a: PriorityContext | undefined, b: PriorityContext | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.fairshareByUser.size !== b.fairshareByUser.size) return false;
  for (const [k, v] of a.fairshareByUser) if (b.fairshareByUser.get(k) !== v) return false;
  return true;
}

/** The context a pass would compute priorities from at `now` (undefined under priority/basic). */
export function priorityContext(state: ClusterState, now: number, cfg: SchedConfig): PriorityContext | undefined {
  return cfg.priorityType === "priority/multifactor" ? buildContext(state, now, cfg) : undefined;
}

/**
 * The job's priority and its factors; with `partition`, as it ranks in that one of the partitions
 * it lists (sprio shows a pending multi-partition job once per listed partition).
 */
export function explainPriority(job: JobRecord, ctx: PriorityContext | undefined, partition?: string): JobPriority {
  const factors = ctx === undefined ? ZERO_FACTORS : factorsInto(job, ctx, { ...ZERO_FACTORS }, partition);
  return { jobId: job.info.jobId, priority: priorityValue(job, ctx, { ...ZERO_FACTORS }, partition), factors, nice: job.info.nice, fixed: job.priorityFixed === true };
}

function priorityValue(job: JobRecord, ctx: Context | undefined, scratch: PriorityFactors, partition?: string): number {
  const info = job.info;
  if (ctx === undefined || info.priority === 0 || job.priorityFixed === true) return info.priority;
  const factors = factorsInto(job, ctx, scratch, partition);
  const w = ctx.cfg.weights;
  let sum =
    w.age * factors.age + w.assoc * factors.assoc + w.fairshare * factors.fairshare +
    w.jobSize * factors.jobSize + w.partition * factors.partition + w.qos * factors.qos;
  for (const name of ctx.tresNames) sum += (ctx.cfg.tresWeights[name] ?? 0) * (factors.tres[name] ?? 0);
  // an administrator's SiteFactor= adds to it (scontrol update)
  const priority = Math.min(PRIORITY_MAX, Math.max(PRIORITY_MIN, Math.floor(sum) - info.nice + (info.siteFactor ?? 0)));
  assert(priority >= PRIORITY_MIN, "a runnable job keeps a positive priority");
  return priority;
}

function factorsInto(job: JobRecord, ctx: Context, out: PriorityFactors, partitionName?: string): PriorityFactors {
  const info = job.info;
  const ageSec = Math.max(0, ctx.now - info.eligibleTime);
  const age = info.eligibleTime > ctx.now ? 0 : Math.min(ageSec, ctx.cfg.priorityMaxAgeSec) / ctx.cfg.priorityMaxAgeSec;
  const jobSize = jobSizeFactor(info.numNodes, jobCpus(info), ctx.totalNodes, ctx.totalCpus, ctx.cfg.priorityFavorSmall);
  const part = priorityPartition(ctx, partitionName ?? info.partition);
  const partition = part === undefined ? 0 : part.info.priorityJobFactor / ctx.maxPartitionFactor;
  out.age = age;
  out.assoc = ctx.assocFactor(job);
  out.fairshare = fairshareOf(ctx, info.account, info.user);
  out.jobSize = jobSize;
  out.partition = partition;
  out.qos = ctx.qosFactor.get(info.qos) ?? 0;
  out.tres = tresFactors(job, ctx, partitionName);
  return out;
}

/**
 * The partition a job's partition factors come from: its own, or of a list (`-p a,b`, pending) the
 * one with the largest PriorityJobFactor (the first of equals): the job ranks as it would where it ranks best.
 */
function priorityPartition(ctx: Context, text: string): PartitionRecord | undefined {
  if (!text.includes(",")) return ctx.partitions.get(text);
  let best: PartitionRecord | undefined;
  for (const name of jobPartitions(text)) {
    const p = ctx.partitions.get(name);
    if (p !== undefined && (best === undefined || p.info.priorityJobFactor > best.info.priorityJobFactor)) best = p;
  }
  return best;
}

/** Classic fair share is keyed by user, fair tree by association (none: 0, as Slurm without an association). */
function fairshareOf(ctx: Context, account: string, user: string): number {
  let byAccount = ctx.fairshareMemo.get(user);
  if (byAccount === undefined) {
    byAccount = new Map();
    ctx.fairshareMemo.set(user, byAccount);
  }
  let f = byAccount.get(account);
  if (f === undefined) {
    f = ctx.fairshareByUser.get(user) ?? ctx.fairshareByUser.get(fairShareKey(account, user)) ?? 0;
    byAccount.set(account, f);
  }
  return f;
}

/** The CPUs Slurm sizes a job by: those it was given, else those it asks for (at least one per node). */
function jobCpus(info: JobRecord["info"]): number {
  return Math.max(1, info.numCpus > 0 ? info.numCpus : info.numTasks * Math.max(1, info.cpusPerTask));
}

/**
 * Slurm's job size factor: the mean of the job's share of the cluster's nodes and of
 * its CPUs (favor large), or of the shares it leaves free (PriorityFavorSmall), in [0, 1].
 * 1 node and 1 CPU of 4 nodes with 16 CPUs: (1/4 + 1/16) / 2 = 0.15625.
 */
export function jobSizeFactor(nodes: number, cpus: number, totalNodes: number, totalCpus: number, favorSmall: boolean): number {
  const n = Math.max(1, nodes);
  const N = Math.max(1, totalNodes);
  const C = Math.max(1, totalCpus);
  const f = favorSmall ? ((N - n) / N + (C - cpus) / C) / 2 : (n / N + cpus / C) / 2;
  return Math.min(1, Math.max(0, f));
}

function tresFactors(job: JobRecord, ctx: Context, partitionName?: string): Record<string, number> {
  const names = ctx.tresNames;
  if (names.length === 0) return NO_TRES;
  const part = priorityPartition(ctx, partitionName ?? job.info.partition);
  const total = ctx.partitionTres.get(part?.info.name ?? "");
  const out: Record<string, number> = {};
  if (total === undefined) return out;
  const info = job.info;
  const cpus = info.numTasks * Math.max(1, info.cpusPerTask);
  const mem = info.memPerNodeMib > 0 ? info.memPerNodeMib * info.numNodes : info.memPerCpuMib * cpus;
  const gpus = requestedGpus(info.tresReq);
  const share = (x: number, of: number): number => (of > 0 ? Math.min(1, x / of) : 0);
  for (const name of names) {
    if (name === "cpu") out[name] = share(cpus, total.cpu);
    else if (name === "mem") out[name] = share(mem, total.mem);
    else if (name === "node") out[name] = share(info.numNodes, total.node);
    else if (name === "gres/gpu") out[name] = share(gpus, total.gpu);
    // a counted GRES AccountingStorageTRES tracks (gres/nvme): the job's TRES over its partition's
    else if (name.startsWith("gres/")) out[name] = share(tresCount(info.tresReq, name), tresCount(part?.info.tres ?? "", name));
  }
  return out;
}

/** The count of TRES `name` in a TRES string ("cpu=4,gres/nvme=2" → 2 for gres/nvme), 0 when absent. */
function tresCount(tres: string, name: string): number {
  for (const item of tres.split(",")) {
    const eq = item.indexOf("=");
    if (eq > 0 && item.slice(0, eq).toLowerCase() === name) return Number(item.slice(eq + 1)) || 0;
  }
  return 0;
}

function requestedGpus(tresReq: string): number {
  const m = /gres\/gpu=(\d+)/.exec(tresReq);
  return m ? Number(m[1]) : 0;
}

/** `started`: the state's jobs with a start time, in its order, where the caller has them (fair tree reads no others). */
function buildContext(state: ClusterState, now: number, cfg: SchedConfig, started?: readonly JobRecord[]): Context {
  let totalCpus = 0;
  for (const n of state.nodes.values()) totalCpus += n.info.cpus;
  const partitions = new Map<string, PartitionRecord>();
  const partitionTres = new Map<string, { cpu: number; mem: number; node: number; gpu: number }>();
  let maxPartitionFactor = 1;
  for (const p of state.partitions) {
    partitions.set(p.info.name, p);
    maxPartitionFactor = Math.max(maxPartitionFactor, p.info.priorityJobFactor);
    const t = { cpu: 0, mem: 0, node: 0, gpu: 0 };
    for (const name of p.nodeNames) {
      const n = state.nodes.get(name);
      if (n === undefined) continue;
      t.cpu += n.info.cpus;
      t.mem += n.info.realMemoryMib;
      t.node += 1;
      t.gpu += n.info.gpuCount;
    }
    partitionTres.set(p.info.name, t);
  }
  return {
    cfg, now, totalNodes: state.nodes.size, totalCpus, maxPartitionFactor, partitions, partitionTres,
    fairshareByUser: state.config.priorityFlags.includes("no_fair_tree")
      ? fairshareFactors(state, now, cfg.decayHalfLifeSec)
      : fairTree(state, now, cfg.decayHalfLifeSec, started).factors,
    tresNames: Object.keys(cfg.tresWeights),
    qosFactor: qosFactors(state),
    assocFactor: assocPriorityOf(state),
    fairshareMemo: new Map(),
  };
}

/**
 * Classic fair share over a flat tree of users with equal shares: F = 2^(-U/S),
 * U = the user's decayed CPU-seconds over everyone's, S = 1 / number of users.
 * Usage decays continuously with the half-life (0 = no decay), integrated in
 * closed form over each job's run, so the result depends only on the records and `now`.
 */
export function fairshareFactors(state: ClusterState, now: number, halfLifeSec: number): Map<string, number> {
  const usage = new Map<string, number>();
  const users = new Set<string>();
  for (const job of state.jobs.values()) {
    const info = job.info;
    users.add(info.user);
    if (info.startTime <= 0) continue;
    const end = info.state === "RUNNING" || info.state === "SUSPENDED" || info.endTime <= 0 ? now : Math.min(now, info.endTime);
    const used = decayedSeconds(info.startTime, end, now, halfLifeSec) * Math.max(1, info.numCpus);
    usage.set(info.user, (usage.get(info.user) ?? 0) + used);
  }
  // The jobs purged after MinJobAge (sched/acct/purged-usage.ts) still count, and their users with them.
  const pu = state.purgedUsage;
  if (pu !== undefined) {
    const f = decaySince(pu.at, now, halfLifeSec);
    for (const [user, used] of Object.entries(pu.user)) {
      users.add(user);
      usage.set(user, (usage.get(user) ?? 0) + used * f);
    }
  }
  let total = 0;
  for (const u of usage.values()) total += u;
  const shares = 1 / Math.max(1, users.size);
  const out = new Map<string, number>();
  for (const user of [...users].sort()) {
    const u = usage.get(user) ?? 0;
    const f = total > 0 ? 2 ** (-(u / total) / shares) : 1;
    assert(f > 0 && f <= 1, `fair-share factor of ${user} in (0, 1]`);
    out.set(user, f);
  }
  return out;
}

/** ∫ from start to end of 2^(-(now - t)/H) dt (plain seconds when H = 0). */
function decayedSeconds(start: number, end: number, now: number, halfLifeSec: number): number {
  if (end <= start) return 0;
  if (halfLifeSec <= 0) return end - start;
  const k = Math.LN2 / halfLifeSec;
  return (Math.exp(-k * (now - end)) - Math.exp(-k * (now - start))) / k;
}
