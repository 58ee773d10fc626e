/**
 * @module sched/acct/submit-policy
 * What accounting decides when a job is submitted: its account (the user's
 * default when none is given) and QOS (the association's default, else
 * "normal"); with AccountingStorageEnforce, that the user has an association
 * in the account (associations), that the QOS exists and is allowed (qos), and
 * that the submit limits hold (limits: MaxSubmitJobs/GrpSubmitJobs of the
 * association chain, MaxSubmitJobsPerUser/GrpSubmitJobs of the QOS); always,
 * that a requested reservation exists and admits the user and account; with
 * Slurm's error texts. A job without a time limit gets the smallest MaxWall
 * that applies, else the longest time its TRES fit in MaxTRESMins, as Slurm
 * does when limits are enforced. A limit the QOS sets hides the association's of the same kind
 * (qos-override.ts). Pure.
 */
import type { ClusterState, JobRecord } from "../model/types.ts";
import type { Requester } from "../model/commands.ts";
import { isJobFinished } from "../model/types.ts";
import { limitsEnforced, inherited, jobTres } from "./limits.ts";
import { jobAssoc, jobAssocMemo } from "./fair-tree.ts";
import { mayUse } from "../resv/types.ts";
import { underQos } from "./qos-override.ts";
import { allowedQos, assocChain, defaultQosOf, TRES_NAMES, userAssoc, type AssocRecord } from "./types.ts";

export const INVALID_ACCOUNT = "Invalid account or account/partition combination specified";
export const INVALID_QOS = "Invalid qos specification";
export const INVALID_RESERVATION = "Requested reservation is invalid";
export const RESERVATION_ACCESS = "Access denied to requested reservation";
export const SUBMIT_LIMIT = "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)";

export interface SubmitPolicy {
  account: string;
  qos: string;
  timeLimitMin: number | undefined;
}

export function submitPolicy(
  state: ClusterState, want: { account: string; qos: string; reservation: string }, by: Requester, partition: string, tasks: number, timeLimitMin: number | undefined,
): SubmitPolicy | string {
  const acct = state.acct;
  const enforce = state.config.acctEnforce;
  // Slurm lower-cases the account a job names (oracle: `sbatch -A ROOT` runs as Account=root)
  const fallback = acct.users.get(by.user)?.defaultAccount || (by.uid === 0 ? "root" : "");
  let account = want.account.toLowerCase() || fallback;
  const strict = enforce.some((e) => ["associations", "limits", "qos", "safe"].includes(e));
  let assoc = userAssoc(acct, state.config.clusterName, account, by.user, partition);
  if (!strict && assoc === undefined && fallback !== "" && account !== fallback) {
    // not enforced: a job naming an account the user has no association in runs in the
    // user's default association (oracle 22.05: `sbatch -A foo` shows Account=root)
    const dflt = userAssoc(acct, state.config.clusterName, fallback, by.user, partition);
    if (dflt !== undefined) [account, assoc] = [fallback, dflt];
  }
  if (want.reservation !== "") {
    const r = state.reservations.get(want.reservation);
    if (r === undefined) return INVALID_RESERVATION;
    if (!mayUse(r, by.user, account)) return RESERVATION_ACCESS;
  }
  if (strict && assoc === undefined) return INVALID_ACCOUNT;
  // QOS names are lower-cased too; not enforced, a QOS that does not exist leaves the job's QOS
  // empty (oracle: `-q NORMAL` is normal, `-q foo` shows QOS=)
  const named = want.qos.toLowerCase();
  const known = named === "" || acct.qos.has(named) || enforce.includes("qos");
  const qos = named === "" ? (assoc === undefined ? "normal" : defaultQosOf(acct, assoc)) : known ? named : "";
  if (enforce.includes("qos") && (!acct.qos.has(qos) || (assoc !== undefined && !allowedQos(acct, assoc).includes(qos)))) return INVALID_QOS;
  if (!limitsEnforced(state) || assoc === undefined) return { account, qos, timeLimitMin };
  const chain = underQos(assocChain(acct, assoc), acct.qos.get(qos));
  const why = submitLimitsHold(state, chain, qos, by.user, tasks);
  if (why !== "") return why;
  return { account, qos, timeLimitMin: timeLimitMin ?? smallestWall(state, chain, qos) };
}

function smallestWall(state: ClusterState, chain: readonly AssocRecord[], qos: string): number | undefined {
  const walls = [state.acct.qos.get(qos)?.limits.maxWallMin, inherited(chain, "maxWallMin")].filter((w): w is number => w !== undefined);
  return walls.length > 0 ? Math.min(...walls) : undefined;
}

/** Jobs (array tasks counted one by one) not yet finished. */
const taskCount = (job: JobRecord): number => (job.info.state === "PENDING" ? Math.max(1, job.arrayPending.length) : 1);

function submitLimitsHold(state: ClusterState, chain: readonly AssocRecord[], qos: string, user: string, tasks: number): string {
  const q = state.acct.qos.get(qos);
  const maxSubmit = inherited(chain, "maxSubmitJobs");
  const anyLimit =
    maxSubmit !== undefined || chain.some((a) => a.limits.grpSubmitJobs !== undefined) ||
    q?.limits.maxSubmitJobsPerUser !== undefined || q?.limits.grpSubmitJobs !== undefined;
  if (!anyLimit) return "";
  // unfinished tasks counted in each member of the submitter's chain (by position: chain[0] is its own association)
  const inChain = new Array<number>(chain.length).fill(0);
  const position = new Map<number, number>(chain.map((a, k) => [a.id, k]));
  // Only associations' counts that a limit reads are needed: none when only the QOS limits are set.
  const byAssoc = maxSubmit !== undefined || chain.some((a) => a.limits.grpSubmitJobs !== undefined);
  // Every job is visited (issue 16: O(jobs) per submission is still left): per job, its association
  // and the chain members above it are looked up once per (user, account, partition) and association,
  // not built (key strings and chain arrays made per job cost ~0.5 us each: 5 ms a submission at 10k jobs).
  const assocOf = jobAssocMemo(state);
  const countedIn = new Map<AssocRecord, readonly number[]>();
  let qosAll = 0;
  let qosMine = 0;
  for (const job of state.jobs.values()) {
    if (isJobFinished(job.info)) continue;
    const n = taskCount(job);
    if (job.info.qos === qos) {
      qosAll += n;
      if (job.info.user === user) qosMine += n;
    }
    if (!byAssoc) continue;
    const a = assocOf(job);
    if (a === undefined) continue;
    let at = countedIn.get(a);
    if (at === undefined) countedIn.set(a, (at = assocChain(state.acct, a).map((up) => position.get(up.id) ?? -1).filter((k) => k >= 0)));
    for (let k = 0; k < at.length; k++) {
      const pos = at[k] as number;
      inChain[pos] = (inChain[pos] ?? 0) + n;
    }
  }
  if (maxSubmit !== undefined && (inChain[0] ?? 0) + tasks > maxSubmit) return SUBMIT_LIMIT;
  for (let k = 0; k < chain.length; k++) {
    const grp = (chain[k] as AssocRecord).limits.grpSubmitJobs;
    if (grp !== undefined && (inChain[k] ?? 0) + tasks > grp) return SUBMIT_LIMIT;
  }
  if (q?.limits.maxSubmitJobsPerUser !== undefined && qosMine + tasks > q.limits.maxSubmitJobsPerUser) return SUBMIT_LIMIT;
  if (q?.limits.grpSubmitJobs !== undefined && qosAll + tasks > q.limits.grpSubmitJobs) return SUBMIT_LIMIT;
  return "";
}

/**
 * The longest time limit (minutes) a job's TRES fit in the MaxTRESMins of its QOS and
 * association chain (undefined: no such limit on a TRES it asks for). Slurm gives this time
 * limit to a job submitted without one while limits are enforced.
 */
export function tresMinsTimeLimit(state: ClusterState, job: JobRecord): number | undefined {
  const assoc = jobAssoc(state, job);
  const q = state.acct.qos.get(job.info.qos);
  const chain = assoc === undefined ? [] : underQos(assocChain(state.acct, assoc), q);
  const limits = [q?.limits.maxTresMinsPerJob, inherited(chain, "maxTresMinsPerJob")];
  const t = jobTres(job);
  let best: number | undefined;
  for (const l of limits) {
    if (l === undefined) continue;
    for (const name of TRES_NAMES) {
      const max = l[name];
      if (max !== undefined && t[name] > 0) best = Math.min(best ?? Number.POSITIVE_INFINITY, Math.floor(max / t[name]));
    }
  }
  return best;
}
