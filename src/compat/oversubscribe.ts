/**
 * @module compat/oversubscribe
 * How a job's node sharing reads in Slurm's outputs: `--exclusive` (whole nodes), `--exclusive=user`
 * (nodes shared only with the same user's jobs), `-s/--oversubscribe`, or none of them. One place,
 * so that scontrol, squeue, the JSON outputs and the job environment cannot disagree.
 */

/** The fields of a job record that say how it shares its nodes. */
export interface SharingFields {
  exclusive: boolean;
  exclusiveUser?: boolean | undefined;
  oversubscribe?: boolean | undefined;
}

/** scontrol OverSubscribe= and squeue %h as 22.05 prints them (oracle: NO, USER, YES, OK). */
export function overSubscribeText(job: SharingFields): string {
  if (job.exclusive) return "NO";
  if (job.exclusiveUser === true) return "USER";
  return job.oversubscribe === true ? "YES" : "OK";
}

/** SLURM_JOB_EXCLUSIVE (26.05): NODE, USER or NO. */
export function exclusiveEnvText(job: SharingFields): string {
  if (job.exclusive) return "NODE";
  return job.exclusiveUser === true ? "USER" : "NO";
}

/** SLURM_JOB_OVERSUBSCRIBE (26.05): NO|YES|OK only; a --exclusive=user job shares, so it reads OK (its exclusivity is in SLURM_JOB_EXCLUSIVE). */
export function overSubscribeEnvText(job: SharingFields): string {
  if (job.exclusive) return "NO";
  return job.oversubscribe === true ? "YES" : "OK";
}

/** squeue/scontrol --json (22.05) "shared": "none" for whole nodes, "user" for --exclusive=user, else null. */
export function sharedJsonText(job: SharingFields): string | null {
  if (job.exclusive) return "none";
  return job.exclusiveUser === true ? "user" : null;
}
