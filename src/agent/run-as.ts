/**
 * @module agent/run-as
 * How a job's processes get the submitter's identity: when the agent runs as
 * root it wraps the command in util-linux `setpriv` (real and effective uid/gid
 * plus the user's supplementary groups); an unprivileged agent can only run its
 * own user's jobs, and says so.
 */

/**
 * SLURM_TASK_PID is the task's own pid, known only once it exists: a shell sets it
 * and execs the command in the same process (setpriv execs too, so the pid holds).
 */
const TASK_PID_SH = 'SLURM_TASK_PID=$$; export SLURM_TASK_PID; exec "$@"';

export function userCommand(uid: number, gid: number, user: string, argv: string[]): string[] {
  const withPid = ["/bin/sh", "-c", TASK_PID_SH, "slurm_task", ...argv];
  const self = process.getuid?.() ?? 0;
  if (self !== 0 || uid === 0) return withPid;
  void user;
  return ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--init-groups", "--", ...withPid];
}

/** Why this agent cannot run a job of `uid`, or "" when it can. */
export function cannotRunAs(uid: number): string {
  const self = process.getuid?.() ?? 0;
  if (self === 0 || self === uid) return "";
  return `spurd runs as uid ${self} and cannot start processes for uid ${uid} (run spurd as root)`;
}
