/**
 * @module sched/plan/user-exclusive
 * `--exclusive=user` (Slurm's OverSubscribe=USER): while such a job runs, its nodes take jobs of
 * its own user only, and it is placed only on nodes where no other user's job runs. Other
 * jobs of the same user share those nodes as usual (oracle 22.05: root's plain job joins
 * root's --exclusive=user job on n1; nobody's job there waits with reason Resources, and
 * root's --exclusive=user job avoids the node running nobody's job).
 * Pure: the node's users come in as data (`nodeUsersOf`), the scheduler's views and the
 * plan applier's re-check (model/start-check.ts) ask the same `userMayUse`.
 */
import type { ClusterState, JobRecord, NodeRecord } from "../model/types.ts";

/** Who runs on one node now. */
export interface NodeUsers {
  /** Distinct uids with a running (or suspended) job on the node, ascending. */
  users: readonly number[];
  /** Uids of those whose job there asked --exclusive=user (one at most while the rule holds, kept as a list to be total). */
  owners: readonly number[];
}

/** What a job brings to the rule: its uid and whether it asked --exclusive=user. */
export interface UserAsk {
  userId: number;
  exclusiveUser: boolean;
}

/** Whether a job of `ask` may take a share of a node whose current users are `node` (undefined: nobody runs there). */
export function userMayUse(node: NodeUsers | undefined, ask: UserAsk): boolean {
  if (node === undefined) return true;
  if (node.owners.some((u) => u !== ask.userId)) return false;
  return !ask.exclusiveUser || node.users.every((u) => u === ask.userId);
}

/** The node's users once a job of `ask` starts there (a new record; `node` is not changed). */
export function withUser(node: NodeUsers | undefined, ask: UserAsk): NodeUsers {
  const users = node?.users ?? [];
  const owners = node?.owners ?? [];
  return {
    users: users.includes(ask.userId) ? users : [...users, ask.userId].sort((a, b) => a - b),
    owners: !ask.exclusiveUser || owners.includes(ask.userId) ? owners : [...owners, ask.userId].sort((a, b) => a - b),
  };
}

/** A job's side of the rule. */
export const userAskOf = (job: JobRecord): UserAsk => ({ userId: job.info.uid, exclusiveUser: job.spec.exclusiveUser === true });

const holdsNodes = (job: JobRecord): boolean => job.info.state === "RUNNING" || job.info.state === "SUSPENDED";

/**
 * The users of one node now, from the jobs charged to it (resources.ts keeps each one's CPU ids,
 * and GPUs, per job id): a look at that node's jobs only, never a scan of the queue, so the
 * scheduler's views and each start decision's re-check cost what the node holds. Undefined: nobody.
 */
export function usersOnNode(state: ClusterState, node: NodeRecord): NodeUsers | undefined {
  const cpuIds = node.cpuIdsByJob;
  if (node.gpuByJob.size === 0 && (cpuIds === undefined || node.info.allocCpus === 0)) return undefined; // most idle nodes: nothing to look up
  const ids = new Set<number>(node.gpuByJob.keys());
  for (const id in cpuIds) ids.add(Number(id));
  let out: NodeUsers | undefined; // withUser keeps its lists sorted, so the order of ids does not matter
  for (const id of ids) {
    const job = state.jobs.get(id);
    // charged here means placed here (chargeAlloc/releaseAlloc keep both maps): no look through the job's own shares
    if (job !== undefined && holdsNodes(job)) out = withUser(out, userAskOf(job));
  }
  return out;
}

/**
 * Whether a job that is queued or holds nodes asked --exclusive=user. Without one, no node has an
 * owner and no request applies the rule, so the nodes' users are not needed (a scan of flags
 * only: the users themselves cost far more on a large cluster).
 */
export function anyExclusiveUser(state: ClusterState): boolean {
  for (const job of state.jobs.values()) {
    if (job.spec.exclusiveUser === true && (job.info.state === "PENDING" || holdsNodes(job))) return true;
  }
  return false;
}

/**
 * Users per node from every job that holds nodes now (running or suspended: a suspended job
 * keeps its nodes' owner, as it keeps its memory); only nodes with a job are in the map. A scan
 * of all jobs: for checkers (the simulation's invariant), not for the scheduler's hot paths.
 */
export function nodeUsersOf(jobs: Iterable<JobRecord>): Map<string, NodeUsers> {
  const out = new Map<string, NodeUsers>();
  for (const job of jobs) {
    if (holdsNodes(job)) for (const share of job.info.alloc) out.set(share.node, withUser(out.get(share.node), userAskOf(job)));
  }
  return out;
}
