/**
 * @module sched/model/start-check
 * The plan applier's re-check (Nomad's rule): a start decision was computed by the
 * scheduler from a snapshot, and anything may have been committed between that pass
 * and the decision's own entry (a cancel of one array task, a hold, a node drained
 * or down, the job moved to another partition, a reservation created, a limit
 * lowered, a job started on the same CPUs). Before a decision changes anything it is
 * checked against the state as it is now; a decision that no longer holds is
 * rejected whole and the others of the same command still apply. Nothing here
 * mutates the state, and nothing here throws on any committed input: the checks
 * are what lets the mutation that follows be written without asserts.
 * One StartCheck serves one command: what costs a scan of every job (dependencies,
 * running array tasks, association limits) is built at most once, on first need,
 * and told of each start the command makes.
 */
import type { StartDecision } from "./commands.ts";
import type { ClusterState, JobRecord, NodeRecord } from "./types.ts";
import { freeResources, genericGresFree, genericGresTotal, nodeAcceptsWork, sharingUsedOn } from "./resources.ts";
import { sharingPerGpu, takeGres } from "../plan/gres-fit.ts";
import { parseGresItems, type GresItem } from "../../compat/gres-generic.ts";
import { deadlinePassed } from "./deadline.ts";
import { buildDependencyIndex, eligibility, partitionReason, type DependencyIndex } from "../plan/eligibility.ts";
import { buildRequest, layoutOf } from "../plan/request.ts";
import { cpusNeeded } from "../../compat/job-layout.ts";
import { INFINITE_END } from "../plan/timeline.ts";
import { LimitTracker } from "../acct/limits.ts";
import { resvNodeFilter, resvReason } from "../resv/resv-check.ts";
import { expandHostlist } from "../../compat/hostlist.ts";
import type { NodeAllocState } from "./state-types.ts";
import { userAskOf, userMayUse, usersOnNode } from "../plan/user-exclusive.ts";
import { jobPartitions } from "./job-partitions.ts";

/** CPUs and GPUs that the same command frees before the decision applies (a SUSPEND preemption's victims). */
export type Freed = ReadonlyMap<string, { cpus: number; gpuIndices: readonly number[] }>;

const EMPTY_DEPS: DependencyIndex = { byId: new Map(), all: [] };

const expand = (h: string): string[] => {
  const r = expandHostlist(h);
  return r.ok ? r.value : [];
};

export class StartCheck {
  private deps: DependencyIndex | undefined;
  private running: Map<number, number> | undefined;
  private limits: LimitTracker | undefined;
  private readonly members = new Map<string, Set<string>>();

  constructor(
    private readonly state: ClusterState,
    private readonly at: number,
  ) {}

  /** Why the decision may not be applied now ("" = it may: every share is valid and free). */
  why(d: StartDecision, freed?: Freed): string {
    const job = this.state.jobs.get(d.jobId);
    if (job === undefined) return "job gone";
    if (job.info.state !== "PENDING") return `job ${job.info.state}`;
    if (!taskStillPending(job, d.arrayTaskId)) return `array task ${d.arrayTaskId} no longer pending`;
    if (deadlinePassed(job, this.at)) return "DeadLine";
    const eligible = eligibility(this.state, job, this.at, this.depsFor(job), this.runningPerArray(job));
    if (eligible !== "") return eligible;
    const resv = resvReason(this.state, job, this.at);
    if (resv !== "") return resv;
    const shares = this.sharesWhy(d.alloc, freed);
    if (shares !== "") return shares;
    const request = this.requestWhy(job, d);
    if (request !== "") return request;
    const users = this.usersWhy(job, d.alloc);
    if (users !== "") return users;
    return this.limitTracker().reason(job, d.alloc);
  }

  /** The decision was applied: later decisions of the command see its array task running and its limits charged. */
  started(job: JobRecord, alloc: readonly NodeAllocState[]): void {
    if (this.running !== undefined && job.info.arrayJobId !== 0) {
      this.running.set(job.info.arrayJobId, (this.running.get(job.info.arrayJobId) ?? 0) + 1);
    }
    this.limits?.charge(job, alloc);
  }

  /** --exclusive=user (plan/user-exclusive.ts): no share on a node another user's job holds that way, and such a job only where its user alone runs. */
  private usersWhy(job: JobRecord, alloc: readonly NodeAllocState[]): string {
    const ask = userAskOf(job);
    // the state already holds the starts applied earlier in the same command (startOnNodes charges them)
    const taken = alloc.find((share) => {
      const node = this.state.nodes.get(share.node);
      return node !== undefined && !userMayUse(usersOnNode(this.state, node), ask);
    });
    return taken === undefined ? "" : `node ${taken.node} shared with another user (--exclusive=user)`;
  }

  /** Each share names a registered node that takes work, once, with whole non-negative amounts that are free now. */
  private sharesWhy(alloc: readonly NodeAllocState[], freed: Freed | undefined): string {
    if (alloc.length === 0) return "no nodes";
    const seen = new Set<string>();
    for (const share of alloc) {
      if (seen.has(share.node)) return `node ${share.node} named twice`;
      seen.add(share.node);
      const node = this.state.nodes.get(share.node);
      if (node === undefined) return `no node ${share.node}`;
      if (!nodeAcceptsWork(node)) return `node ${share.node} ${node.info.state}`;
      if (!wholeAtLeast(share.cpus, 0) || !wholeAtLeast(share.memMib, 0) || share.cpus + share.gpuIndices.length === 0) return `bad share on ${share.node}`;
      const gpus = share.gpuIndices;
      if (new Set(gpus).size !== gpus.length || !gpus.every((g) => wholeAtLeast(g, 0) && g < node.info.gpuCount)) return `bad GPUs on ${share.node}`;
      const free = freeResources(node);
      const extra = freed?.get(share.node);
      if (share.cpus > free.cpus + (extra?.cpus ?? 0) || share.memMib > free.memMiB) return `resources on ${share.node} no longer free`;
      const freeGpus = new Set([...free.gpuIndices, ...(extra?.gpuIndices ?? [])]);
      if (!gpus.every((g) => freeGpus.has(g))) return `GPUs on ${share.node} no longer free`;
      if (share.gres && takeGres(parseGresItems(share.gres), genericGresFree(node)) === undefined) return `GRES on ${share.node} no longer free`;
      if (share.gres && !sharingRoom(node, parseGresItems(share.gres))) return `GPU share on ${share.node} no longer free`;
    }
    return "";
  }

  /** What the job asks for now (it may have been updated since the pass): partition, nodes, features, node and CPU counts, reservations. */
  private requestWhy(job: JobRecord, d: StartDecision): string {
    const alloc = d.alloc;
    const req = buildRequest(job.spec, this.state.config, expand);
    if (typeof req === "string") return req;
    const names = alloc.map((s) => s.node);
    const partition = startPartition(job, d, (p) => names.every((n) => this.partitionMembers(p).has(n)));
    if (partition === undefined) return d.partition === undefined ? `nodes outside partition ${job.info.partition}` : `partition ${d.partition} not the job's`;
    const members = this.partitionMembers(partition);
    if (!names.every((n) => members.has(n))) return `nodes outside partition ${partition}`;
    // of a list, the partition itself must let the job run (the job's eligibility asked only that one does)
    if (partition !== job.info.partition) {
      const barred = partitionReason(this.state, job, partition);
      if (barred !== "") return `${barred} in partition ${partition}`;
    }
    if (names.some((n) => req.exclude.includes(n))) return "excluded node";
    if (!req.nodelist.every((n) => names.includes(n))) return "required node missing";
    if (req.features.length > 0) {
      for (const n of names) {
        const have = (this.state.nodes.get(n)?.info.features ?? "").split(",");
        if (!req.features.every((f) => have.includes(f))) return `node ${n} lacks features`;
      }
    }
    if (names.length < req.nodesMin) return "fewer nodes than asked";
    const cpus = alloc.reduce((n, s) => n + s.cpus, 0);
    // --overcommit holds one task's CPUs per node, whatever its task count (job-layout.ts)
    if (cpus < cpusNeeded(layoutOf(req), names.length)) return "fewer CPUs than asked";
    const limitMin = job.info.timeLimitMin;
    const duration = limitMin === undefined ? INFINITE_END : Math.max(60, limitMin * 60);
    const allowed = resvNodeFilter(this.state, job, this.at, duration);
    if (allowed !== undefined && !names.every((n) => allowed(n))) return "nodes reserved";
    return "";
  }

  private depsFor(job: JobRecord): DependencyIndex {
    if (!job.spec.dependency) return EMPTY_DEPS;
    return (this.deps ??= buildDependencyIndex(this.state));
  }

  /** Running elements per array, counted once per command (only when a throttled array is checked). */
  private runningPerArray(job: JobRecord): ReadonlyMap<number, number> | undefined {
    if (job.arrayThrottle === 0) return this.running;
    if (this.running === undefined) {
      this.running = new Map();
      for (const other of this.state.jobs.values()) {
        const i = other.info;
        if (i.arrayJobId !== 0 && i.state === "RUNNING") this.running.set(i.arrayJobId, (this.running.get(i.arrayJobId) ?? 0) + 1);
      }
    }
    return this.running;
  }

  private limitTracker(): LimitTracker {
    return (this.limits ??= new LimitTracker(this.state, this.at));
  }

  private partitionMembers(name: string): Set<string> {
    let set = this.members.get(name);
    if (set === undefined) {
      set = new Set(this.state.partitions.find((p) => p.info.name === name)?.nodeNames ?? []);
      this.members.set(name, set);
    }
    return set;
  }
}

/**
 * The partition a start decision puts the job in: its own; of a list (`-p a,b`), the one the
 * decision names when listed, else (a decision that names none) the first listed one that holds
 * every allocated node (`holds`). Undefined: a named partition the job does not list.
 */
export function startPartition(job: JobRecord, d: StartDecision, holds: (partition: string) => boolean): string | undefined {
  const text = job.info.partition;
  if (!text.includes(",")) return d.partition === undefined || d.partition === text ? text : undefined;
  const listed = jobPartitions(text);
  if (d.partition !== undefined) return listed.includes(d.partition) ? d.partition : undefined;
  return listed.find(holds) ?? listed[0];
}

/**
 * A meta record starts one of its pending tasks; an array element only its own task; a job
 * that is no array ignores the task id (older logs and hand-made commands carry 0 there).
 */
export function taskStillPending(job: JobRecord, taskId: number): boolean {
  if (job.arrayPending.length > 0) return job.arrayPending.includes(taskId);
  return job.info.arrayJobId === 0 || taskId === job.info.arrayTaskId;
}

const wholeAtLeast = (n: unknown, min: number): boolean => typeof n === "number" && Number.isInteger(n) && n >= min;

/** Whether each shard/MPS item's GPU is not held whole and has room left in its share of the node's count. */
function sharingRoom(node: NodeRecord, items: readonly GresItem[]): boolean {
  const whole = new Set([...node.gpuByJob.values()].flat());
  const used = sharingUsedOn(node);
  const total = genericGresTotal(node);
  return items.every((g) => g.gpu === undefined || (
    g.gpu < node.info.gpuCount && !whole.has(g.gpu)
    && (used.get(g.name)?.get(g.gpu) ?? 0) + g.count <= sharingPerGpu(g.name, total, node.info.gpuCount)
  ));
}
