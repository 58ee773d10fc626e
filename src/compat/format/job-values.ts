/**
 * @module format/job-values
 * The derived values squeue prints for a job record: display id (`17_[4-10%2]`,
 * `17_2`), run time excluding suspension, NODELIST(REASON), Slurm's exact
 * K/M/G unit conversion. Shared by the -o/-O field tables and the sort keys.
 */
import type { Plain } from "../../lib/plain.ts";
import type { JobInfo } from "../../net/gen/spur/v1/types_pb.ts";
import { formatDuration } from "../format-time.ts";
import { jobStateCompact, jobStateLong } from "../states.ts";
import { isoTimeText } from "./time-memo.ts";
import { exactUnits } from "../../lib/num-unit.ts";

export type Job = Plain<JobInfo>;

/** One printed line of squeue: the (possibly adjusted) job and the clock. */
export interface JobRow {
  job: Job;
  /** Whole seconds, as Slurm's time(NULL). */
  now: number;
  cluster: string;
}

/** The upper-case base state; the usual spellings skip toUpperCase (hot in filters). */
function base(job: Job): string {
  const s = job.state;
  return s === "PENDING" || s === "RUNNING" || s === "COMPLETED" ? s : s.toUpperCase();
}
const hasFlag = (job: Job, flag: string): boolean =>
  job.stateFlags.length !== 0 && job.stateFlags.some((f) => f.toUpperCase() === flag);

export const isPending = (job: Job): boolean => base(job) === "PENDING";

/** A job that ended without starting (cancelled pending) has its end as its start in Slurm 22.05 (oracle: scontrol StartTime=, squeue %S). */
export const shownStartTime = (job: Job): number => (job.startTime === 0 && !isPending(job) ? job.endTime : job.startTime);

/** A --begin (or StartTime=) later than the submission: Slurm keeps it as the job's begin time. */
export const hasBeginTime = (job: Job): boolean => job.eligibleTime > job.submitTime;

/**
 * EligibleTime as Slurm records it: only once the job may run. A held job that never
 * started (pending, or cancelled while held) and a pending job still waiting on a
 * dependency show Unknown (0), unless a begin time was given: Slurm shows its begin time
 * then, held or not (oracle, differential tester seeds 13/194/279); otherwise the
 * eligible (submit or begin) time.
 */
export function eligibleTimeOf(job: Job): number {
  const heldNeverRan = job.priority === 0 && job.startTime === 0;
  const onDependency = isPending(job) && job.reason.startsWith("Dependency");
  return (heldNeverRan || onDependency) && !hasBeginTime(job) ? 0 : job.eligibleTime;
}
/**
 * AccrueTime: when the job began accruing age priority, 0 when it does not (scontrol prints
 * Unknown, squeue -O AccrueTime N/A). Spur keeps no such field: Slurm 22.05 shows the eligible
 * time for ordinary jobs, and none for array tasks split off their array (goldens 059/065,
 * 063/064) or a job not yet eligible: held (even with a --begin, whose time the view shows as
 * its StartTime; oracle: differential seeds 13/194/279), on a dependency or before --begin.
 */
export function accrueTimeOf(job: Job, now: number): number {
  if (job.arrayJobId !== 0 && job.arrayTaskId >= 0) return 0;
  const eligible = eligibleTimeOf(job);
  const notStarted = isPending(job) || job.startTime === 0;
  const held = job.priority === 0 && notStarted;
  return held || (eligible > now && notStarted) ? 0 : eligible;
}
export const isRunning = (job: Job): boolean => base(job) === "RUNNING";
export const isSuspended = (job: Job): boolean => base(job) === "SUSPENDED";
export const isCompleting = (job: Job): boolean => hasFlag(job, "COMPLETING");

/**
 * The display names (%T, %t) depend only on state and flags: memoised per
 * distinct combination, so a 10k-job listing resolves them a handful of times.
 */
type StateNames = readonly [long: string, compact: string];
/** By state, then by its single flag ("" = none); records with several flags are not memoised. */
const STATE_NAMES = new Map<string, Map<string, StateNames>>();
function stateNames(job: Job): StateNames {
  const flags = job.stateFlags;
  if (flags.length > 1) return [jobStateLong(job), jobStateCompact(job)];
  const flag = flags.length === 0 ? "" : (flags[0] as string);
  let byFlag = STATE_NAMES.get(job.state);
  if (byFlag === undefined) {
    if (STATE_NAMES.size >= 256) STATE_NAMES.clear();
    byFlag = new Map();
    STATE_NAMES.set(job.state, byFlag);
  }
  let hit = byFlag.get(flag);
  if (hit === undefined) {
    hit = [jobStateLong(job), jobStateCompact(job)];
    if (byFlag.size < 256) byFlag.set(flag, hit);
  }
  return hit;
}

/** squeue %T (jobStateLong, memoised). */
export const stateLongText = (job: Job): string => stateNames(job)[0];

/** squeue %t (jobStateCompact, memoised). */
export const stateCompactText = (job: Job): string => stateNames(job)[1];

/** True for an array element or the pending remainder of an array. */
export const isArrayRecord = (job: Job): boolean =>
  job.arrayTaskStr !== "" || (job.arrayJobId !== 0 && job.arrayTaskId >= 0);

/** squeue %i: `17_[4-10%2]`, `17_2`, `20`, or a heterogeneous job's component `30+1`. */
export function displayJobId(job: Job): string {
  if (job.hetJobId) return `${job.hetJobId}+${job.hetJobOffset ?? 0}`;
  if (job.arrayTaskStr !== "") return `${job.arrayJobId}_[${job.arrayTaskStr}]`;
  if (job.arrayJobId !== 0 && job.arrayTaskId >= 0) return `${job.arrayJobId}_${job.arrayTaskId}`;
  return String(job.jobId);
}

/** squeue %F: the array's id for array records, else the job id. */
export const arrayJobIdOf = (job: Job): number => (isArrayRecord(job) ? job.arrayJobId : job.jobId);

/** squeue %K: pending index set, task index, or N/A. */
export function arrayTaskIdText(job: Job): string {
  if (job.arrayTaskStr !== "") return job.arrayTaskStr;
  if (job.arrayJobId !== 0 && job.arrayTaskId >= 0) return String(job.arrayTaskId);
  return "N/A";
}

/** Seconds of run time, suspended time excluded (Slurm's job_time_used). */
export const jobTimeUsed = (job: Job, now: number): number => jobTimeUsedAt(job, { now });

/**
 * jobTimeUsed reading `clock.now` only when the answer depends on it (a running job): a
 * JobRow is a clock, and the controller learns from that read whether a listing moves with
 * the time (compat/format/squeue-view.ts).
 */
export function jobTimeUsedAt(job: Job, clock: { readonly now: number }): number {
  const start = Math.floor(job.startTime);
  if (start === 0 || isPending(job)) return 0;
  if (isSuspended(job)) return Math.floor(job.preSusTime);
  const end = isRunning(job) || job.endTime === 0 ? clock.now : Math.floor(job.endTime);
  if (job.suspendTime !== 0) return end - Math.floor(job.suspendTime) + Math.floor(job.preSusTime);
  return end - start;
}

const REASON_STATES = new Set(["TIMEOUT", "OUT_OF_MEMORY", "DEADLINE", "FAILED"]);

/** True when NODELIST(REASON) shows the reason rather than the nodes. */
export function showsReason(job: Job): boolean {
  if (isCompleting(job)) return false;
  const state = base(job);
  if (state === "PENDING" || hasFlag(job, "STAGE_OUT")) return true;
  return REASON_STATES.has(state);
}

/** squeue %R: "(Resources)" for waiting/failed jobs, else the node list. */
export const reasonList = (job: Job): string =>
  showsReason(job) ? `(${job.reason || "None"})` : job.nodelist;

/** Seconds to the limit; undefined when the job has no limit. */
export const timeLeft = (job: Job, now: number): number | undefined => timeLeftAt(job, { now });

/** timeLeft reading the clock only when the answer depends on it (see jobTimeUsedAt). */
export function timeLeftAt(job: Job, clock: { readonly now: number }): number | undefined {
  if (job.timeLimitMin === undefined) return undefined;
  return job.timeLimitMin * 60 - jobTimeUsedAt(job, clock);
}

/**
 * A number → text function remembered per argument (bounded): most records
 * of a listing share a few durations, limits and timestamps (pending = 0).
 */
export function memoByNumber(fn: (n: number) => string, limit = 8192): (n: number) => string {
  const seen = new Map<number, string>();
  return (n) => {
    let text = seen.get(n);
    if (text === undefined) {
      text = fn(n);
      if (seen.size >= limit) seen.clear();
      seen.set(n, text);
    }
    return text;
  };
}

/** formatDuration, memoised. */
export const durationText = memoByNumber(formatDuration);

/** squeue %M. */
export const timeUsedText = (row: JobRow): string => durationText(jobTimeUsedAt(row.job, row));

/** squeue timestamps: ISO local time, "N/A" when unset. */
export const timeText = (epochSec: number): string => isoTimeText(epochSec, "N/A");

/**
 * Slurm's convert_num_unit with exact conversion (lib/num-unit.ts): `unit` is the starting
 * suffix index (2 = "M"). 256 M → "256M", 1024 M → "1G", 1536 M → "1.50G", 4 (no unit) → "4".
 */
export const convertNumUnit = (value: number, unit = 0): string => exactUnits(value, unit);

/** String fields Slurm leaves NULL when unset print "(null)". */
export const orNull = (text: string): string | undefined => (text === "" ? undefined : text);

/** TRES strings print "N/A" when unset. */
export const orNa = (text: string): string => (text === "" ? "N/A" : text);

/** squeue %p: priority scaled to 0..1 with 14 decimals ("%16.14f"). */
export const priorityFraction = (priority: number): string =>
  (priority / 0xffffffff).toFixed(14).padStart(16);

/** Slurm's horizon for a running job without a time limit: its end_time is the start plus a year. */
const NO_LIMIT_HORIZON_SEC = 365 * 86400;

/**
 * A job's end time as Slurm keeps it: for a running or suspended job without a time
 * limit, its start plus 365 days (oracle, 22.05: squeue --json end_time; squeue %e then
 * prints NONE); otherwise the recorded end (0 = none).
 */
export function expectedEndTime(job: { state: string; startTime: number; endTime: number; timeLimitMin?: number | undefined }): number {
  const active = job.state === "RUNNING" || job.state === "SUSPENDED";
  if (active && job.timeLimitMin === undefined && job.endTime === 0 && job.startTime > 0) return job.startTime + NO_LIMIT_HORIZON_SEC;
  return job.endTime;
}

/** A per-node/socket/core count the job asked for, or "*" (any) when it asked for none. */
export const orAny = (n: number | undefined): string => (n === undefined || n === 0 ? "*" : String(n));

/**
 * The GRES of a job's TRES per task as 22.05's scontrol and squeue print them, "gres:gpu:1"
 * (26.x: "cpu=4,gres/gpu=1"; oracle: -n2 -c2 --gpus-per-task=1 shows gres:gpu:1 in both, -c2 alone nothing).
 */
export function gresPerTaskText(tresPerTask: string): string {
  return tresPerTask.split(",").filter((p) => p.startsWith("gres/")).map((p) => p.replace(/^gres\//, "gres:").replace("=", ":")).join(",");
}

/** A job's TRES per socket as 22.05's scontrol and squeue print it: "gres:gpu:1" (recorded "gres/gpu:1"); "" when none. */
export const gresPerSocketText = (job: { tresPerSocket?: string | undefined }): string => (job.tresPerSocket ?? "").replace(/^gres\//, "gres:");

/**
 * The GPU type a job's request names, from --gres/--gpus-per-node ("gres/gpu:mi300x:2", or a type
 * without a count), else from --gpus ("gres/gpu:mi300x:3"); undefined when untyped.
 */
export function askedGpuType(job: { tresPerNode: string; tresPerJob: string }): string | undefined {
  const gres = (job.tresPerNode || job.tresPerJob).replace(/(^|,)gres[/:]/g, "$1");
  return /(?:^|,)gpu:([^:,\d][^:,]*)(?::\d+)?(?:,|$)/.exec(gres)?.[1];
}

/**
 * The type the GPUs a job holds on a node are shown with (gres_detail, scontrol -d's GRES=): their
 * node's type (recorded when the job started; oracle 22.05: --gpus-per-node=1 on mi300x nodes shows
 * gpu:mi300x:1(IDX:2)), else `listed` (a node listing's, for records from before the type was kept),
 * else the request's; undefined: untyped.
 */
export function shownGpuType(share: { gpuType?: string | undefined }, asked: string | undefined, listed?: string): string | undefined {
  return share.gpuType || listed || asked || undefined;
}

/** gres_detail of squeue --json and GET jobs: one "gpu[:type]:N(IDX:list)" per node that holds GPUs. */
export function gresDetailOf(job: Pick<Job, "alloc" | "tresPerNode" | "tresPerJob">, indexList: (indices: readonly number[]) => string): string[] {
  const asked = askedGpuType(job);
  return job.alloc.filter((a) => a.gpuIndices.length > 0).map((a) => {
    const type = shownGpuType(a, asked);
    return `gpu:${type === undefined ? "" : `${type}:`}${a.gpuIndices.length}(IDX:${indexList(a.gpuIndices)})`;
  });
}
