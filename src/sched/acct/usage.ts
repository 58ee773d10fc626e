/**
 * @module sched/acct/usage
 * Usage over time, what the time limits (GrpTRESMins, GrpWall) and `sshare -l` read: per
 * association (charged to the job's association and every account above it) and per QOS, the
 * TRES-seconds and wall seconds jobs ran, decayed with PriorityDecayHalfLife, and the
 * TRES-minutes running jobs still have before their time limit (TRESRunMins). Like the
 * fair-tree usage it is derived from the job records at a `now` the caller passes in, so it is
 * a pure function of the replicated state: every replica (and a replay) computes the same
 * figures, and nothing is accumulated inside apply(). A job's usage is scaled by its QOS's
 * UsageFactor, as Slurm does. Jobs without a time limit add nothing to TRESRunMins.
 */
import { decayedSeconds } from "./decay.ts";
import { TRES_NAMES, type TresName } from "./types.ts";
import { assert } from "../../lib/assert.ts";

/** The fields of a job record this module reads (kept structural so the module stays a leaf). */
export interface UsageJob {
  info: { state: string; startTime: number; endTime: number; timeLimitMin?: number | undefined; qos: string };
}

/** What usageTables asks of the caller about each job. */
export interface UsagePorts<J extends UsageJob> {
  /** What the job holds (its allocation, else its request). */
  tresOf: (job: J) => TresAmounts;
  /** Its QOS's UsageFactor. */
  usageFactor: (job: J) => number;
  /** Ids of its association and every one above it (empty: it charges none). */
  chainIds: (job: J) => readonly number[];
}

export type TresAmounts = Record<TresName, number>;
export const zeroTres = (): TresAmounts => ({ cpu: 0, mem: 0, node: 0, "gres/gpu": 0 });

export interface TimeUsage {
  /** Decayed TRES-seconds (Slurm's usage_tres_raw). */
  tresSec: TresAmounts;
  /** Decayed seconds of job wall time (grp_used_wall). */
  wallSec: number;
  /** TRES-minutes still to run before the time limits of running jobs (TRESRunMins). */
  runMin: TresAmounts;
}

export interface UsageTables {
  byAssoc: Map<number, TimeUsage>;
  byQos: Map<string, TimeUsage>;
}

const newUsage = (): TimeUsage => ({ tresSec: zeroTres(), wallSec: 0, runMin: zeroTres() });

const isActive = (job: UsageJob): boolean => job.info.state === "RUNNING" || job.info.state === "SUSPENDED";

/** What one job adds: decayed TRES-seconds and wall seconds up to `now`, and its remaining TRES-minutes. */
export function jobTimeUsage(job: UsageJob, tres: TresAmounts, now: number, halfLifeSec: number, usageFactor: number): TimeUsage {
  const u = newUsage();
  const info = job.info;
  if (info.startTime <= 0 || info.startTime > now) return u;
  const active = isActive(job) || info.endTime <= 0;
  const end = active ? now : Math.min(now, info.endTime);
  const wall = decayedSeconds(info.startTime, end, now, halfLifeSec) * usageFactor;
  u.wallSec = wall;
  for (const name of TRES_NAMES) u.tresSec[name] = wall * tres[name];
  if (isActive(job) && info.timeLimitMin !== undefined) {
    const leftSec = Math.max(0, info.timeLimitMin * 60 - (now - info.startTime));
    for (const name of TRES_NAMES) u.runMin[name] = Math.floor((tres[name] * leftSec) / 60);
  }
  assert(u.wallSec >= 0 && u.tresSec.cpu >= 0, "usage is never negative");
  return u;
}

export function addUsage(into: TimeUsage, u: TimeUsage): void {
  into.wallSec += u.wallSec;
  for (const name of TRES_NAMES) {
    into.tresSec[name] += u.tresSec[name];
    into.runMin[name] += u.runMin[name];
  }
}

export function usageSlot<K>(map: Map<K, TimeUsage>, key: K): TimeUsage {
  let u = map.get(key);
  if (u === undefined) {
    u = newUsage();
    map.set(key, u);
  }
  return u;
}

/** Usage of every association (its subtree's jobs) and QOS at `now`. */
export function usageTables<J extends UsageJob>(jobs: Iterable<J>, now: number, halfLifeSec: number, ports: UsagePorts<J>): UsageTables {
  const byAssoc = new Map<number, TimeUsage>();
  const byQos = new Map<string, TimeUsage>();
  for (const job of jobs) {
    if (job.info.startTime <= 0 || job.info.startTime > now) continue;
    const u = jobTimeUsage(job, ports.tresOf(job), now, halfLifeSec, ports.usageFactor(job));
    addUsage(usageSlot(byQos, job.info.qos), u);
    for (const id of ports.chainIds(job)) addUsage(usageSlot(byAssoc, id), u);
  }
  return { byAssoc, byQos };
}

/** Whole minutes of decayed usage, as Slurm compares them with a *Mins limit. */
export const usageMinutes = (u: TimeUsage | undefined, name: TresName): number => (u === undefined ? 0 : Math.floor(u.tresSec[name] / 60));

/** `sshare -l`'s TRESRunMins: every tracked TRES in Slurm's order, zeros included. */
export function tresRunMinsText(u: TimeUsage | undefined, trackedTres: readonly string[]): string {
  const value = (name: string): number => (u !== undefined && (TRES_NAMES as readonly string[]).includes(name) ? u.runMin[name as TresName] : 0);
  return trackedTres.map((name) => `${name}=${value(name)}`).join(",");
}
