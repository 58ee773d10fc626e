/**
 * @module states
 * Job and node state names as Slurm prints them: squeue %T/%t, sacct State,
 * sinfo %T/%t/StateComplete and scontrol State=, plus the name lookup used by
 * `squeue -t` / `sacct -s` (facts: shared/slurm-surface/states.tsv). Pure data
 * and small functions over Plain<JobInfo>/Plain<NodeInfo>-shaped values.
 */

/** Minimal shape of a job or node record for state display. */
export interface StateLike {
  state: string;
  stateFlags: string[];
}

// -------------------------------------------------------------------- jobs

/** Job base states with their short codes, in enum order. */
export const JOB_STATE_BASES: readonly (readonly [long: string, short: string])[] = [
  ["PENDING", "PD"], ["RUNNING", "R"], ["SUSPENDED", "S"], ["COMPLETED", "CD"],
  ["CANCELLED", "CA"], ["FAILED", "F"], ["TIMEOUT", "TO"], ["NODE_FAIL", "NF"],
  ["PREEMPTED", "PR"], ["BOOT_FAIL", "BF"], ["DEADLINE", "DL"], ["OUT_OF_MEMORY", "OOM"],
];

/**
 * Job state flags in display precedence (the first one present wins over the
 * base state). EXPEDITING has no short code: the base state's code is shown.
 */
export const JOB_STATE_FLAGS: readonly (readonly [long: string, short: string | undefined])[] = [
  ["COMPLETING", "CG"], ["STAGE_OUT", "SO"], ["CONFIGURING", "CF"], ["EXPEDITING", undefined],
  ["RESIZING", "RS"], ["REQUEUED", "RQ"], ["REQUEUE_FED", "RF"], ["REQUEUE_HOLD", "RH"],
  ["SPECIAL_EXIT", "SE"], ["STOPPED", "ST"], ["REVOKED", "RV"], ["RESV_DEL_HOLD", "RD"],
  ["SIGNALING", "SI"],
];

/** Every job state name (bases, then flags): what `squeue -t all` selects. */
export const JOB_STATES_ALL: readonly string[] = [
  ...JOB_STATE_BASES.map(([l]) => l),
  ...JOB_STATE_FLAGS.map(([l]) => l),
];

/** Slurm's internal flag spelling JOB_REQUEUE is accepted for REQUEUED. */
const JOB_FLAG_ALIASES: Readonly<Record<string, string>> = { REQUEUE: "REQUEUED" };

const jobFlagSet = (flags: string[]): Set<string> =>
  new Set(flags.map((f) => JOB_FLAG_ALIASES[f.toUpperCase()] ?? f.toUpperCase()));

/** The flag that decides the display, if any. */
function displayFlag(job: StateLike): (typeof JOB_STATE_FLAGS)[number] | undefined {
  const flags = jobFlagSet(job.stateFlags);
  return JOB_STATE_FLAGS.find(([l]) => flags.has(l));
}

/** squeue %T / sacct State / scontrol JobState=: "RUNNING", "COMPLETING"; unknown → "?". */
export function jobStateLong(job: StateLike): string {
  const flag = displayFlag(job);
  if (flag) return flag[0];
  const base = JOB_STATE_BASES.find(([l]) => l === job.state.toUpperCase());
  return base ? base[0] : "?";
}

/** squeue %t: "R", "PD", "CG"; EXPEDITING shows the base code; unknown → "?". */
export function jobStateCompact(job: StateLike): string {
  const flag = displayFlag(job);
  if (flag?.[1] !== undefined) return flag[1];
  const base = JOB_STATE_BASES.find(([l]) => l === job.state.toUpperCase());
  return base ? base[1] : "?";
}

/**
 * `squeue -t` / `sacct -s` names: long or short, any case → the long name
 * ("cg" → "COMPLETING", "pd" → "PENDING"); unknown → undefined. "all" is not
 * a state: callers expand it to JOB_STATES_ALL themselves.
 */
export function jobStateFromName(s: string): string | undefined {
  const u = s.trim().toUpperCase();
  const aliased = JOB_FLAG_ALIASES[u] ?? u;
  for (const [long, short] of [...JOB_STATE_BASES, ...JOB_STATE_FLAGS]) {
    if (aliased === long || (short !== undefined && u === short)) return long;
  }
  return undefined;
}

/** True for states in which a job will never run again (sacct "ended"). */
export function isJobFinished(job: StateLike): boolean {
  return !["PENDING", "RUNNING", "SUSPENDED"].includes(job.state.toUpperCase());
}

// ------------------------------------------------------------------- nodes

