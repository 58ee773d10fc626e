/**
 * @module sched/acct/purged-usage
 * The usage of jobs that have left the controller's memory (apply-purge.ts), kept in the
 * replicated state so that fair share and the limits over time (GrpTRESMins, GrpWall) do not
 * forget it: every reader derives usage from the job records at its `now`, and a purged job
 * has no record any more. A finished job's decayed usage at `now` is its usage at the purge
 * time `at` times 2^(-(now - at)/H) (decay.ts: the integral factors exactly), so the sums are
 * stored decayed to one time (`at`, the last purge's) and scaled by the decay since when read.
 * Keyed as each reader charges: the fair tree per leaf association, the limits per leaf
 * association (the chain above it is taken when read, as for live jobs) and per QOS, classic
 * fair share per user. Plain objects, so that snapshots keep it as any other part.
 */
import type { ClusterState, JobRecord } from "../model/types.ts";
import { decayedSeconds } from "./decay.ts";
import { TRES_NAMES } from "./types.ts";
import { jobTimeUsage, type TimeUsage, type TresAmounts, zeroTres } from "./usage.ts";
import type { PurgedSums, PurgedUsage } from "./purged-usage-types.ts";

export type { PurgedSums, PurgedUsage };

const newSums = (): PurgedSums => ({ cpuFair: 0, tresSec: zeroTres(), wallSec: 0 });

/** 2^(-(now - at)/H): what a second of usage stored at `at` counts at `now` (1 without decay). */
export function decaySince(at: number, now: number, halfLifeSec: number): number {
  if (halfLifeSec <= 0) return 1;
  return Math.exp((-Math.LN2 / halfLifeSec) * (now - at));
}

function scale(s: PurgedSums, f: number): void {
  s.cpuFair *= f;
  s.wallSec *= f;
  for (const name of TRES_NAMES) s.tresSec[name] *= f;
}

function addTo(into: PurgedSums, cpuFair: number, u: TimeUsage): void {
  into.cpuFair += cpuFair;
  into.wallSec += u.wallSec;
  for (const name of TRES_NAMES) into.tresSec[name] += u.tresSec[name];
}

export interface PurgePorts {
  /** The job's leaf association id (undefined: it charges none). */
  assocId(job: JobRecord): number | undefined;
  tresOf(job: JobRecord): TresAmounts;
}

/**
 * Fold the usage of `jobs` (finished, about to leave the state) into state.purgedUsage at `at`.
 * Jobs that never started used nothing.
 */
export function foldPurgedUsage(state: ClusterState, jobs: readonly JobRecord[], at: number, ports: PurgePorts): void {
  const halfLifeSec = state.config.sched.decayHalfLifeSec;
  if (jobs.length === 0) return;
  const started = jobs.filter((j) => j.info.startTime > 0 && j.info.startTime <= at);
  const pu: PurgedUsage = state.purgedUsage ?? { at, assoc: {}, qos: {}, user: {} };
  // Bring what is stored to `at` first (a purge is never before the last one: `at` is the leader's clock,
  // which may step back on a new leader; then the stored sums grow slightly, as live jobs' would).
  const f = decaySince(pu.at, at, halfLifeSec);
  if (f !== 1) {
    for (const s of Object.values(pu.assoc)) scale(s, f);
    for (const s of Object.values(pu.qos)) scale(s, f);
    for (const user of Object.keys(pu.user)) pu.user[user] = (pu.user[user] ?? 0) * f;
  }
  pu.at = at;
  // Classic fair share counts every user who has a job, run or not (its shares): a purged job's user stays counted.
  for (const job of jobs) pu.user[job.info.user] ??= 0;
  for (const job of started) {
    const info = job.info;
    const factor = state.acct.qos.get(info.qos)?.usageFactor ?? 1;
    const end = info.endTime <= 0 ? at : Math.min(at, info.endTime);
    const cpuSec = decayedSeconds(info.startTime, end, at, halfLifeSec) * Math.max(1, info.numCpus);
    const u = jobTimeUsage(job, ports.tresOf(job), at, halfLifeSec, factor);
    const assocId = ports.assocId(job);
    if (assocId !== undefined) addTo((pu.assoc[String(assocId)] ??= newSums()), cpuSec * factor, u);
    addTo((pu.qos[info.qos] ??= newSums()), cpuSec * factor, u);
    pu.user[info.user] = (pu.user[info.user] ?? 0) + cpuSec;
  }
  state.purgedUsage = pu;
}

/** A stored sum as a TimeUsage at `now` (no TRES-minutes left to run: these jobs ended). */
export function purgedTimeUsage(s: PurgedSums, factor: number): TimeUsage {
  const tresSec = zeroTres();
  for (const name of TRES_NAMES) tresSec[name] = s.tresSec[name] * factor;
  return { tresSec, wallSec: s.wallSec * factor, runMin: zeroTres() };
}
