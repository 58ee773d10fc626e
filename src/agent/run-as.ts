/**
 * @module agent/run-as
 * How a job's processes get the submitter's identity: when the agent runs as
 * root it wraps the command in util-linux `setpriv` (real and effective uid/gid
 * plus the user's supplementary groups); an unprivileged agent can only run its
 * own user's jobs, and says so.
 */

export function userCommand(uid: number, gid: number, user: string, argv: string[]): string[] {
  const self = process.getuid?.() ?? 0;
  if (self !== 0 || uid === 0) return argv;
  void user;
  return ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--init-groups", "--", ...argv];
}

/** Why this agent cannot run a job of `uid`, or "" when it can. */
export function cannotRunAs(uid: number): string {
  const self = process.getuid?.() ?? 0;
  if (self === 0 || self === uid) return "";
  return `spurd runs as uid ${self} and cannot start processes for uid ${uid} (run spurd as root)`;
}
