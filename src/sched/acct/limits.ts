/**
 * @module sched/acct/limits
 * QOS and association limits in scheduling, with Slurm's pending reasons.
 * A LimitTracker is built once per pass from the running jobs and charged for
 * each start the pass decides, so no start within one pass can exceed a limit
 * (MaxJobs, GrpJobs, GrpTRES, MaxTRES per job, MaxWall; QOS MaxJobsPU,
 * MaxTRESPU, GrpJobs, GrpTRES, MaxTRES, MaxWall). Enforced only when
 * AccountingStorageEnforce includes limits (or safe), as in Slurm. Limits set
 * on an account apply to the users below it: Max* by inheritance (nearest set
 * value), Grp* to the whole subtree. Limits over time (limits-time.ts): MaxTRESMins
 * per job, GrpTRESMins and GrpWall against the decayed usage at the pass's `now`. A limit the
 * job's QOS sets hides the associations' limit of the same kind (qos-override.ts).
 */
import type { ClusterState, JobRecord } from "../model/types.ts";
import { jobAssoc } from "./fair-tree.ts";
import { assocChain, type AssocLimits, type AssocRecord, type TresLimit, type TresName } from "./types.ts";
import { TimeLimits } from "./limits-time.ts";
import { addUsage, usageSlot, usageTables, type UsageTables } from "./usage.ts";
import { decaySince, purgedTimeUsage } from "./purged-usage.ts";
import { underQos } from "./qos-override.ts";

export type Tres = Record<TresName, number>;
/** One node's share of an allocation (the fields of NodeAlloc this module reads). */
export interface AllocShare {
  cpus: number;
  memMib: number;
  gpuIndices: readonly number[];
}
const ZERO = (): Tres => ({ cpu: 0, mem: 0, node: 0, "gres/gpu": 0 });

interface Use {
  jobs: number;
  tres: Tres;
}

const newUse = (): Use => ({ jobs: 0, tres: ZERO() });

export const limitsEnforced = (state: ClusterState): boolean =>
  state.config.acctEnforce.includes("limits") || state.config.acctEnforce.includes("safe");

/** What a job holds (running: its allocation) or asks for (pending: its request). */
export function jobTres(job: JobRecord, alloc: readonly AllocShare[] = job.info.alloc): Tres {
  const info = job.info;
  if (alloc.length > 0) {
    const t = ZERO();
    for (const a of alloc) {
      t.cpu += a.cpus;
      t.mem += a.memMib;
      t["gres/gpu"] += a.gpuIndices.length;
    }
    t.node = alloc.length;
    return t;
  }
  const t = ZERO();
  for (const part of info.tresReq.split(",")) {
    const [k, v] = part.split("=");
    if (v === undefined) continue;
    if (k === "cpu") t.cpu = Number(v);
    else if (k === "node") t.node = Number(v);
    else if (k === "gres/gpu") t["gres/gpu"] = Number(v);
    else if (k === "mem") t.mem = memMiB(v);
  }
  return t;
}

function memMiB(v: string): number {
  const n = Number.parseFloat(v);
  const unit = v.slice(-1).toUpperCase();
  return unit === "G" ? n * 1024 : unit === "T" ? n * 1024 * 1024 : unit === "K" ? n / 1024 : n;
}

/** Usage over time of every association and QOS at `now` (decayed with PriorityDecayHalfLife). */
export function jobUsageTables(state: ClusterState, now: number): UsageTables {
  const chains = new Map<number, number[]>();
  const tables = usageTables(state.jobs.values(), now, state.config.sched.decayHalfLifeSec, {
    tresOf: (job) => jobTres(job),
    usageFactor: (job) => state.acct.qos.get(job.info.qos)?.usageFactor ?? 1,
    chainIds: (job) => {
      const leaf = jobAssoc(state, job);
      if (leaf === undefined) return [];
      let ids = chains.get(leaf.id);
      if (ids === undefined) {
        ids = assocChain(state.acct, leaf).map((a) => a.id);
        chains.set(leaf.id, ids);
      }
      return ids;
    },
  });
  addPurgedUsage(state, tables, now);
  return tables;
}

/** The purged jobs' usage (purged-usage.ts), charged like a live job's: the leaf's chain as it is now, and the QOS. */
function addPurgedUsage(state: ClusterState, tables: UsageTables, now: number): void {
  const pu = state.purgedUsage;
  if (pu === undefined) return;
  const f = decaySince(pu.at, now, state.config.sched.decayHalfLifeSec);
  for (const [id, sums] of Object.entries(pu.assoc)) {
    const leaf = state.acct.assocs.get(Number(id));
    if (leaf === undefined) continue;
    const u = purgedTimeUsage(sums, f);
    for (const a of assocChain(state.acct, leaf)) addUsage(usageSlot(tables.byAssoc, a.id), u);
  }
  for (const [qos, sums] of Object.entries(pu.qos)) addUsage(usageSlot(tables.byQos, qos), purgedTimeUsage(sums, f));
}

const REASON = {
  qosPerJob: { cpu: "QOSMaxCpuPerJobLimit", mem: "QOSMaxMemoryPerJob", node: "QOSMaxNodePerJobLimit", "gres/gpu": "QOSMaxGRESPerJob" },
  qosPerUser: { cpu: "QOSMaxCpuPerUserLimit", mem: "QOSMaxMemoryPerUser", node: "QOSMaxNodePerUserLimit", "gres/gpu": "QOSMaxGRESPerUser" },
  qosGrp: { cpu: "QOSGrpCpuLimit", mem: "QOSGrpMemLimit", node: "QOSGrpNodeLimit", "gres/gpu": "QOSGrpGRES" },
  assocPerJob: { cpu: "AssocMaxCpuPerJobLimit", mem: "AssocMaxMemPerJob", node: "AssocMaxNodePerJobLimit", "gres/gpu": "AssocMaxGRESPerJob" },
  assocGrp: { cpu: "AssocGrpCpuLimit", mem: "AssocGrpMemLimit", node: "AssocGrpNodeLimit", "gres/gpu": "AssocGrpGRES" },
} as const satisfies Record<string, Record<TresName, string>>;

/** The first TRES whose `used + add` exceeds the limit, else undefined. */
function overTres(limit: TresLimit | undefined, used: Tres, add: Tres): TresName | undefined {
  if (limit === undefined) return undefined;
  for (const name of ["cpu", "mem", "node", "gres/gpu"] as const) {
    const max = limit[name];
    if (max !== undefined && used[name] + add[name] > max) return name;
  }
  return undefined;
}

/** The nearest value of a Max* limit on the chain (leaf first). */
export function inherited<K extends keyof AssocLimits>(chain: readonly AssocRecord[], key: K): AssocLimits[K] {
  for (const a of chain) if (a.limits[key] !== undefined) return a.limits[key];
  return undefined;
}

export class LimitTracker {
  private readonly assocUse = new Map<number, Use>();
  private readonly qosUse = new Map<string, Use>();
  private readonly qosUserUse = new Map<string, Use>();
  private readonly chains = new Map<number, AssocRecord[]>();
  readonly enforced: boolean;
  private readonly time: TimeLimits | undefined;

  /** `now`: the pass's clock, what usage over time is decayed to. */
  /** `active`: the state's running and suspended jobs where the caller has them (the scheduling pass does), else all are looked at. */
  constructor(private readonly state: ClusterState, now: number, active?: readonly JobRecord[]) {
    this.enforced = limitsEnforced(state);
    if (!this.enforced) return;
    this.time = TimeLimits.ifAny(state.acct, state.config.acctEnforce.includes("safe"), () => jobUsageTables(state, now));
    for (const job of active ?? state.jobs.values()) {
      if (job.info.state === "RUNNING" || job.info.state === "SUSPENDED") this.charge(job);
    }
  }

  private chainOf(job: JobRecord): AssocRecord[] {
    const leaf = jobAssoc(this.state, job);
    if (leaf === undefined) return [];
    let chain = this.chains.get(leaf.id);
    if (chain === undefined) {
      chain = assocChain(this.state.acct, leaf);
      this.chains.set(leaf.id, chain);
    }
    return chain;
  }

  private use<K>(map: Map<K, Use>, key: K): Use {
    let u = map.get(key);
    if (u === undefined) {
      u = newUse();
      map.set(key, u);
    }
    return u;
  }

  /** Count a started job (one array task) against its QOS and association chain. */
  charge(job: JobRecord, alloc?: readonly AllocShare[]): void {
    if (!this.enforced) return;
    const t = jobTres(job, alloc);
    const add = (u: Use): void => {
      u.jobs += 1;
      for (const k of Object.keys(t) as TresName[]) u.tres[k] += t[k];
    };
    for (const a of this.chainOf(job)) add(this.use(this.assocUse, a.id));
    add(this.use(this.qosUse, job.info.qos));
    add(this.use(this.qosUserUse, `${job.info.qos}\u0000${job.info.user}`));
    this.time?.charge(job, t, this.chainOf(job));
  }

  /** Why starting one more task of this job (on `alloc`, else as requested) would break a limit ("" = it would not). */
  reason(job: JobRecord, alloc?: readonly AllocShare[]): string {
    if (!this.enforced) return "";
    const t = jobTres(job, alloc);
    const wall = job.info.timeLimitMin;
    const q = this.state.acct.qos.get(job.info.qos);
    if (q !== undefined) {
      const l = q.limits;
      if (l.maxWallMin !== undefined && (wall === undefined || wall > l.maxWallMin)) return "QOSMaxWallDurationPerJobLimit";
      const overTime = this.time?.qosReason(job, q, t) ?? "";
      if (overTime !== "") return overTime;
      const perJob = overTres(l.maxTresPerJob, ZERO(), t);
      if (perJob !== undefined) return REASON.qosPerJob[perJob];
      const all = this.qosUse.get(q.name) ?? newUse();
      if (l.grpJobs !== undefined && all.jobs + 1 > l.grpJobs) return "QOSGrpJobsLimit";
      const grp = overTres(l.grpTres, all.tres, t);
      if (grp !== undefined) return REASON.qosGrp[grp];
      const mine = this.qosUserUse.get(`${q.name}\u0000${job.info.user}`) ?? newUse();
      if (l.maxJobsPerUser !== undefined && mine.jobs + 1 > l.maxJobsPerUser) return "QOSMaxJobsPerUserLimit";
      const pu = overTres(l.maxTresPerUser, mine.tres, t);
      if (pu !== undefined) return REASON.qosPerUser[pu];
    }
    // usage is charged along the whole chain, but a limit the QOS sets is the one in force
    const chain = underQos(this.chainOf(job), q);
    if (chain.length === 0) return "";
    const maxWall = inherited(chain, "maxWallMin");
    if (maxWall !== undefined && (wall === undefined || wall > maxWall)) return "AssocMaxWallDurationPerJobLimit";
    const overTime = this.time?.assocReason(job, chain, t) ?? "";
    if (overTime !== "") return overTime;
    const perJob = overTres(inherited(chain, "maxTresPerJob"), ZERO(), t);
    if (perJob !== undefined) return REASON.assocPerJob[perJob];
    const leafUse = this.assocUse.get((chain[0] as AssocRecord).id) ?? newUse();
    const maxJobs = inherited(chain, "maxJobs");
    if (maxJobs !== undefined && leafUse.jobs + 1 > maxJobs) return "AssocMaxJobsLimit";
    for (const a of chain) {
      const u = this.assocUse.get(a.id) ?? newUse();
      if (a.limits.grpJobs !== undefined && u.jobs + 1 > a.limits.grpJobs) return "AssocGrpJobsLimit";
      const grp = overTres(a.limits.grpTres, u.tres, t);
      if (grp !== undefined) return REASON.assocGrp[grp];
    }
    return "";
  }
}
