/**
 * @module sched/acct/fair-tree
 * Fair share by Slurm's fair-tree algorithm (PriorityFlags FAIR_TREE, the
 * default). Usage is each association's CPU-seconds, decayed with
 * PriorityDecayHalfLife and derived from the job records at `now` (so it is a
 * pure function of the replicated state and replays identically), scaled by the
 * job's QOS UsageFactor. At every account, children are ordered by
 * LevelFS = S / U (S: shares among siblings, U: usage among siblings; no usage
 * = infinite); a depth-first walk in that order ranks user associations, and a
 * user's factor is rank / number of users (first = 1.0, ties share a rank, tied accounts'
 * children are ranked together, as Slurm's fair_tree does).
 * The rows are what `sshare` prints.
 */
import type { ClusterState, JobRecord } from "../model/types.ts";
import { accountAssoc, userAssoc, type AssocRecord } from "./types.ts";
import { assert } from "../../lib/assert.ts";
import { decayedSeconds } from "./decay.ts";
import { decaySince } from "./purged-usage.ts";

export { decayedSeconds };

export interface ShareRow {
  assocId: number;
  account: string;
  /** "" for an account row. */
  user: string;
  partition: string;
  depth: number;
  rawShares: number;
  normShares: number;
  rawUsage: number;
  normUsage: number;
  effectvUsage: number;
  levelFs: number;
  /** The fair-share factor (users only; NaN for accounts). */
  fairshare: number;
}

export interface FairTree {
  rows: ShareRow[];
  /** Factor per `${account}\0${user}`. */
  factors: Map<string, number>;
}

export const fairShareKey = (account: string, user: string): string => `${account}\u0000${user}`;

/** The association a job charges: its account (or the user's default) and user. */
export function jobAssoc(state: ClusterState, job: JobRecord): AssocRecord | undefined {
  const acct = state.acct;
  const account = job.info.account || acct.users.get(job.info.user)?.defaultAccount || "";
  return userAssoc(acct, state.config.clusterName, account, job.info.user, job.info.partition);
}

/** `jobs`: the state's jobs, or those of them with a start time (the others charge nothing), in the state's order. */
function usageByAssoc(state: ClusterState, now: number, halfLifeSec: number, jobs: Iterable<JobRecord>): Map<number, number> {
  const usage = new Map<number, number>();
  const assocOf = jobAssocMemo(state);
  for (const job of jobs) {
    const info = job.info;
    if (info.startTime <= 0 || info.startTime > now) continue;
    const a = assocOf(job);
    if (a === undefined) continue;
    const active = info.state === "RUNNING" || info.state === "SUSPENDED" || info.endTime <= 0;
    const end = active ? now : Math.min(now, info.endTime);
    const factor = state.acct.qos.get(info.qos)?.usageFactor ?? 1;
    const used = decayedSeconds(info.startTime, end, now, halfLifeSec) * Math.max(1, info.numCpus) * factor;
    usage.set(a.id, (usage.get(a.id) ?? 0) + used);
  }
  // The jobs purged after MinJobAge (purged-usage.ts): their decayed usage, by the association they charged.
  const pu = state.purgedUsage;
  if (pu !== undefined) {
    const f = decaySince(pu.at, now, halfLifeSec);
    for (const [id, sums] of Object.entries(pu.assoc)) usage.set(Number(id), (usage.get(Number(id)) ?? 0) + sums.cpuFair * f);
  }
  return usage;
}

/**
 * jobAssoc for many jobs of one state: memoised per (user, account, partition), the only job fields it
 * reads (the accounting records do not change while it is used), so 100k jobs build no key strings.
 */
export function jobAssocMemo(state: ClusterState): (job: JobRecord) => AssocRecord | undefined {
  const memo = new Map<string, Map<string, Map<string, AssocRecord | undefined>>>();
  return (job) => {
    const { user, account, partition } = job.info;
    let byAccount = memo.get(user);
    if (byAccount === undefined) memo.set(user, (byAccount = new Map()));
    let byPartition = byAccount.get(account);
    if (byPartition === undefined) byAccount.set(account, (byPartition = new Map()));
    if (byPartition.has(partition)) return byPartition.get(partition);
    const a = jobAssoc(state, job);
    byPartition.set(partition, a);
    return a;
  };
}

interface Node {
  assoc: AssocRecord;
  children: Node[];
  usage: number;
}

function buildTree(state: ClusterState, usage: Map<number, number>): Node | undefined {
  const cluster = state.config.clusterName;
  const root = accountAssoc(state.acct, cluster, "root");
  if (root === undefined) return undefined;
  const byParent = new Map<string, AssocRecord[]>();
  for (const a of state.acct.assocs.values()) {
    if (a.cluster !== cluster || a.id === root.id) continue;
    const parent = a.user === "" ? a.parent : a.account;
    byParent.set(parent, [...(byParent.get(parent) ?? []), a]);
  }
  const make = (a: AssocRecord, depth: number): Node => {
    const kids = a.user === "" && depth < 64 ? (byParent.get(a.account) ?? []) : [];
    // Users before sub-accounts, each by name (sshare's order).
    kids.sort((x, y) => (x.user === "" ? 1 : 0) - (y.user === "" ? 1 : 0) || cmp(x.user || x.account, y.user || y.account) || x.id - y.id);
    const children = kids.map((k) => make(k, depth + 1));
    const own = usage.get(a.id) ?? 0;
    return { assoc: a, children, usage: own + children.reduce((s, c) => s + c.usage, 0) };
  };
  return make(root, 0);
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * `started`: the state's jobs with a start time (startTime > 0), in the state's order, where the
 * caller has them (the scheduling pass notes them in its walk); jobs that never started charge
 * nothing, and the same jobs in the same order sum to the same usage.
 */
export function fairTree(state: ClusterState, now: number, halfLifeSec: number, started?: readonly JobRecord[]): FairTree {
  const rows: ShareRow[] = [];
  const factors = new Map<string, number>();
  const tree = buildTree(state, usageByAssoc(state, now, halfLifeSec, started ?? state.jobs.values()));
  if (tree === undefined) return { rows, factors };
  const total = tree.usage;
  const users = countUsers(tree);
  const byId = new Map<number, ShareRow>();
  const emit = (n: Node, depth: number, normShares: number, effectv: number, levelFs: number): void => {
    const row: ShareRow = {
      assocId: n.assoc.id, account: n.assoc.account, user: n.assoc.user, partition: n.assoc.partition, depth,
      rawShares: n.assoc.shares, normShares, rawUsage: n.usage, normUsage: total > 0 ? n.usage / total : 0,
      effectvUsage: effectv, levelFs, fairshare: Number.NaN,
    };
    rows.push(row);
    byId.set(n.assoc.id, row);
    const shareSum = n.children.reduce((s, c) => s + c.assoc.shares, 0);
    for (const c of n.children) {
      const s = shareSum > 0 ? c.assoc.shares / shareSum : 0;
      const u = n.usage > 0 ? c.usage / n.usage : 0;
      emit(c, depth + 1, s, u, u > 0 ? s / u : s > 0 ? Number.POSITIVE_INFINITY : 0);
    }
  };
  emit(tree, 0, 1, total > 0 ? 1 : 0, Number.POSITIVE_INFINITY);
  // Rank users as Slurm's fair tree does: siblings in LevelFS order (highest first, users before
  // accounts on a tie); a user tied with the sibling before it keeps that rank, tied accounts have
  // their children merged and ranked together, and an account tied with the sibling before it
  // passes the tie to its first child (oracle 22.05: five users without usage all show 1.000000;
  // one with usage below four without it: 0.200000 and 1.000000 for the rest).
  let visited = 0;
  let rank = users;
  const walk = (siblings: readonly Node[], accountTied: boolean): void => {
    const ordered = [...siblings].sort((a, b) => levelOf(byId, b) - levelOf(byId, a)
      || (a.assoc.user === "" ? 1 : 0) - (b.assoc.user === "" ? 1 : 0)
      || cmp(a.assoc.user || a.assoc.account, b.assoc.user || b.assoc.account));
    let previous: number | undefined;
    for (let i = 0; i < ordered.length; i++) {
      const c = ordered[i] as Node;
      const level = levelOf(byId, c);
      const tied = i === 0 ? accountTied : level === previous;
      previous = level;
      if (c.assoc.user === "") {
        const merged = [...c.children];
        while (i + 1 < ordered.length && (ordered[i + 1] as Node).assoc.user === "" && levelOf(byId, ordered[i + 1] as Node) === level) {
          merged.push(...(ordered[++i] as Node).children);
        }
        walk(merged, tied);
        continue;
      }
      if (!tied) rank = users - visited;
      visited++;
      const f = users > 0 ? rank / users : 0;
      assert(f > 0 && f <= 1, "a user's fair-tree factor is in (0, 1]");
      (byId.get(c.assoc.id) as ShareRow).fairshare = f;
      factors.set(fairShareKey(c.assoc.account, c.assoc.user), Math.max(f, factors.get(fairShareKey(c.assoc.account, c.assoc.user)) ?? 0));
    }
  };
  walk(tree.children, false);
  assert(visited === users, "every user association is ranked once");
  return { rows, factors };
}

function levelOf(byId: Map<number, ShareRow>, n: Node): number {
  const v = byId.get(n.assoc.id)?.levelFs ?? 0;
  return Number.isNaN(v) ? 0 : v;
}

function countUsers(n: Node): number {
  return n.children.reduce((s, c) => s + (c.assoc.user === "" ? countUsers(c) : 1), 0);
}

/** Multifactor's QOS factor: the QOS priority over the largest one (0 when none is set). */
export function qosFactors(state: ClusterState): Map<string, number> {
  let max = 0;
  for (const q of state.acct.qos.values()) max = Math.max(max, q.priority);
  const out = new Map<string, number>();
  for (const q of state.acct.qos.values()) out.set(q.name, max > 0 ? q.priority / max : 0);
  return out;
}

/** Multifactor's association factor: the nearest Priority= on the chain over the largest one. */
export function assocPriorityOf(state: ClusterState): (job: JobRecord) => number {
  let max = 0;
  for (const x of state.acct.assocs.values()) max = Math.max(max, x.priority ?? 0);
  return (job) => (max === 0 ? 0 : assocPriority(state, job, max));
}

function assocPriority(state: ClusterState, job: JobRecord, max: number): number {
  const a = jobAssoc(state, job);
  if (a === undefined) return 0;
  let cur: AssocRecord | undefined = a;
  for (let depth = 0; cur !== undefined && depth < 64; depth++) {
    if (cur.priority !== undefined) return cur.priority / max;
    cur = accountAssoc(state.acct, cur.cluster, cur.user === "" ? cur.parent : cur.account);
  }
  return 0;
}
