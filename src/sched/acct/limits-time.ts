/**
 * @module sched/acct/limits-time
 * Limits over time, with Slurm's pending reasons: MaxTRESMins (a job's TRES x its time limit,
 * in minutes; a job without a time limit exceeds any), GrpTRESMins (the decayed TRES-minutes
 * the association's subtree, or the QOS, has used: a job asking for that TRES waits once the
 * usage reaches the limit; with AccountingStorageEnforce=safe it also waits when its own
 * TRES-minutes and those still to run of the running jobs would not fit in what is left) and
 * GrpWall (decayed wall minutes of the subtree's or the QOS's jobs). Usage comes from
 * usage.ts at the pass's `now`, built only when some association or QOS sets one of these
 * limits. The association chain given to `assocReason` is already stripped of the limits its
 * QOS hides (qos-override.ts).
 */
import type { AcctState, AssocRecord, QosRecord, TresLimit, TresName } from "./types.ts";
import { TRES_NAMES } from "./types.ts";
import { type TimeUsage, type TresAmounts, type UsageTables, usageMinutes, zeroTres } from "./usage.ts";

/** The fields of a job this module reads. */
export interface TimedJob {
  info: { timeLimitMin?: number | undefined; qos: string };
}
import { assert } from "../../lib/assert.ts";

const REASON = {
  qosPerJob: { cpu: "QOSMaxCpuMinutesPerJobLimit", mem: "QOSMaxMemoryMinutesPerJob", node: "QOSMaxNodeMinutesPerJob", "gres/gpu": "QOSMaxGRESMinutesPerJob" },
  qosGrp: { cpu: "QOSGrpCPUMinutesLimit", mem: "QOSGrpMemoryMinutes", node: "QOSGrpNodeMinutes", "gres/gpu": "QOSGrpGRESMinutes" },
  assocPerJob: { cpu: "AssocMaxCpuMinutesPerJobLimit", mem: "AssocMaxMemMinutesPerJob", node: "AssocMaxNodeMinutesPerJob", "gres/gpu": "AssocMaxGRESMinutesPerJob" },
  assocGrp: { cpu: "AssocGrpCPUMinutesLimit", mem: "AssocGrpMemMinutes", node: "AssocGrpNodeMinutes", "gres/gpu": "AssocGrpGRESMinutes" },
} as const satisfies Record<string, Record<TresName, string>>;

/** Does any association or QOS set a limit over time? */
export function anyTimeLimit(acct: AcctState): boolean {
  for (const q of acct.qos.values()) {
    const l = q.limits;
    if (l.grpTresMins !== undefined || l.maxTresMinsPerJob !== undefined || l.grpWallMin !== undefined) return true;
  }
  for (const a of acct.assocs.values()) {
    const l = a.limits;
    if (l.grpTresMins !== undefined || l.maxTresMinsPerJob !== undefined || l.grpWallMin !== undefined) return true;
  }
  return false;
}

/** A job's TRES-minutes: TRES x time limit (infinite for a TRES it holds without a time limit). */
export function jobTresMinutes(t: TresAmounts, timeLimitMin: number | undefined): TresAmounts {
  const out = zeroTres();
  for (const name of TRES_NAMES) {
    out[name] = t[name] === 0 ? 0 : timeLimitMin === undefined ? Number.POSITIVE_INFINITY : t[name] * timeLimitMin;
  }
  return out;
}

/** The first TRES of a per-job minutes limit the job exceeds. */
export function overPerJob(limit: TresLimit | undefined, jobMin: TresAmounts): TresName | undefined {
  if (limit === undefined) return undefined;
  for (const name of TRES_NAMES) {
    const max = limit[name];
    if (max !== undefined && jobMin[name] > max) return name;
  }
  return undefined;
}

/**
 * The first TRES of a group minutes limit that holds the job: used minutes reached the limit
 * (for a TRES the job asks for); with `safe`, also the job's minutes plus those still to run
 * above what is left.
 */
export function overGroup(limit: TresLimit | undefined, used: TimeUsage | undefined, jobMin: TresAmounts, safe: boolean): TresName | undefined {
  if (limit === undefined) return undefined;
  for (const name of TRES_NAMES) {
    const max = limit[name];
    if (max === undefined || jobMin[name] === 0) continue;
    const usedMin = usageMinutes(used, name);
    if (usedMin >= max) return name;
    if (safe && (jobMin[name] > max || jobMin[name] + (used?.runMin[name] ?? 0) > max - usedMin)) return name;
  }
  return undefined;
}

const wallReached = (limitMin: number | undefined, used: TimeUsage | undefined): boolean =>
  limitMin !== undefined && Math.floor((used?.wallSec ?? 0) / 60) >= limitMin;

/** The nearest MaxTRESMins on the chain (leaf first), as other Max* limits are inherited. */
function inheritedPerJob(chain: readonly AssocRecord[]): TresLimit | undefined {
  for (const a of chain) if (a.limits.maxTresMinsPerJob !== undefined) return a.limits.maxTresMinsPerJob;
  return undefined;
}

export class TimeLimits {
  private tables: UsageTables | undefined;

  /** `safe`: AccountingStorageEnforce has safe; `build`: the usage tables at the pass's clock (built once, on first need). */
  private constructor(
    private readonly safe: boolean,
    private readonly build: () => UsageTables,
  ) {}

  /** A checker when some limit over time is set, else undefined (nothing to compute). */
  static ifAny(acct: AcctState, safe: boolean, build: () => UsageTables): TimeLimits | undefined {
    return anyTimeLimit(acct) ? new TimeLimits(safe, build) : undefined;
  }

  private usage(): UsageTables {
    this.tables ??= this.build();
    return this.tables;
  }

  /** The QOS's MaxTRESMins, GrpWall and GrpTRESMins reason ("" = none holds the job). */
  qosReason(job: TimedJob, q: QosRecord, t: TresAmounts): string {
    const l = q.limits;
    const jobMin = jobTresMinutes(t, job.info.timeLimitMin);
    const perJob = overPerJob(l.maxTresMinsPerJob, jobMin);
    if (perJob !== undefined) return REASON.qosPerJob[perJob];
    if (l.grpWallMin === undefined && l.grpTresMins === undefined) return "";
    const used = this.usage().byQos.get(q.name);
    if (wallReached(l.grpWallMin, used)) return "QOSGrpWallLimit";
    const grp = overGroup(l.grpTresMins, used, jobMin, this.safe);
    return grp === undefined ? "" : REASON.qosGrp[grp];
  }

  /** The association chain's MaxTRESMins, GrpWall and GrpTRESMins reason. */
  assocReason(job: TimedJob, chain: readonly AssocRecord[], t: TresAmounts): string {
    assert(chain.length > 0, "an association chain starts at the job's association");
    const jobMin = jobTresMinutes(t, job.info.timeLimitMin);
    const perJob = overPerJob(inheritedPerJob(chain), jobMin);
    if (perJob !== undefined) return REASON.assocPerJob[perJob];
    for (const a of chain) {
      const l = a.limits;
      if (l.grpWallMin === undefined && l.grpTresMins === undefined) continue;
      const used = this.usage().byAssoc.get(a.id);
      if (wallReached(l.grpWallMin, used)) return "AssocGrpWallLimit";
      const grp = overGroup(l.grpTresMins, used, jobMin, this.safe);
      if (grp !== undefined) return REASON.assocGrp[grp];
    }
    return "";
  }

  /** A start decided in this pass: its TRES-minutes count as still to run (what `safe` compares). */
  charge(job: TimedJob, t: TresAmounts, chain: readonly AssocRecord[]): void {
    if (!this.safe || job.info.timeLimitMin === undefined) return;
    const tables = this.usage();
    const add = (u: TimeUsage | undefined): void => {
      if (u === undefined) return;
      for (const name of TRES_NAMES) u.runMin[name] += t[name] * (job.info.timeLimitMin as number);
    };
    const slot = (key: string | number, map: Map<string | number, TimeUsage>): TimeUsage => {
      let u = map.get(key);
      if (u === undefined) {
        u = { tresSec: zeroTres(), wallSec: 0, runMin: zeroTres() };
        map.set(key, u);
      }
      return u;
    };
    add(slot(job.info.qos, tables.byQos as Map<string | number, TimeUsage>));
    for (const a of chain) add(slot(a.id, tables.byAssoc as Map<string | number, TimeUsage>));
  }
}
