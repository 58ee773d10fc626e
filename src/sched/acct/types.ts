/**
 * @module sched/acct/types
 * Accounting records as sacctmgr manages them: clusters, accounts, users, QOS
 * and associations (the account tree with shares and limits). They live in the
 * replicated ClusterState and change only through apply()'s "acct" command, so
 * they survive restarts (log replay) and will replicate under Raft. A fresh
 * cluster has what Slurm's slurmdbd creates: the cluster's root association,
 * account root, user root in account root, and QOS "normal".
 */

/** Trackable resources a limit can name: cpu, mem (MiB), node, gres/gpu. */
export type TresLimit = Partial<Record<TresName, number>>;
export type TresName = "cpu" | "mem" | "node" | "gres/gpu";
export const TRES_NAMES: readonly TresName[] = ["cpu", "mem", "node", "gres/gpu"];

/** Association limits (undefined = not set here: inherited from the parent account, else none). */
export interface AssocLimits {
  grpJobs?: number;
  grpSubmitJobs?: number;
  grpTres?: TresLimit;
  /** GrpTRESMins: TRES-minutes the subtree may use (decayed usage, sched/acct/usage.ts). */
  grpTresMins?: TresLimit;
  grpWallMin?: number;
  maxJobs?: number;
  maxSubmitJobs?: number;
  maxTresPerJob?: TresLimit;
  /** MaxTRESMins: TRES x time limit (minutes) of one job. */
  maxTresMinsPerJob?: TresLimit;
  maxWallMin?: number;
}

export interface QosLimits {
  grpJobs?: number;
  grpSubmitJobs?: number;
  grpTres?: TresLimit;
  grpTresMins?: TresLimit;
  grpWallMin?: number;
  maxTresPerJob?: TresLimit;
  maxTresMinsPerJob?: TresLimit;
  maxTresPerUser?: TresLimit;
  maxJobsPerUser?: number;
  maxSubmitJobsPerUser?: number;
  maxWallMin?: number;
}

export interface AccountRecord {
  name: string;
  description: string;
  organization: string;
}

export interface UserRecord {
  name: string;
  defaultAccount: string;
  /** None, Operator or Administrator. */
  adminLevel: string;
}

export interface AssocRecord {
  id: number;
  cluster: string;
  account: string;
  /** "" for an account's own association. */
  user: string;
  partition: string;
  /** The parent account ("" for the cluster's root association). */
  parent: string;
  /** Fairshare= (raw shares); Slurm's default is 1. */
  shares: number;
  /** Priority= of the association (multifactor's association factor). */
  priority?: number;
  limits: AssocLimits;
  /** Allowed QOS names (inherited from the parent when empty). */
  qos: string[];
  defaultQos: string;
}

export interface QosRecord {
  id: number;
  name: string;
  description: string;
  priority: number;
  limits: QosLimits;
  /** QOS this one may preempt. */
  preempt: string[];
  /** cluster (use PreemptMode from the config), cancel, requeue, suspend. */
  preemptMode: string;
  graceTimeSec: number;
  usageFactor: number;
}

export interface AcctState {
  clusters: string[];
  accounts: Map<string, AccountRecord>;
  users: Map<string, UserRecord>;
  /** By id; ids are allocated from nextAssocId inside apply. */
  assocs: Map<number, AssocRecord>;
  qos: Map<string, QosRecord>;
  nextAssocId: number;
  nextQosId: number;
}

/** What Slurm's database holds on a fresh cluster. */
export function newAcctState(cluster: string): AcctState {
  const state: AcctState = {
    clusters: [cluster], accounts: new Map(), users: new Map(), assocs: new Map(), qos: new Map(), nextAssocId: 1, nextQosId: 1,
  };
  state.accounts.set("root", { name: "root", description: "default root account", organization: "root" });
  state.users.set("root", { name: "root", defaultAccount: "root", adminLevel: "Administrator" });
  addQosRecord(state, "normal", "Normal QOS default");
  addAssocRecord(state, { cluster, account: "root", user: "", partition: "", parent: "", shares: 1, limits: {}, qos: ["normal"], defaultQos: "" });
  addAssocRecord(state, { cluster, account: "root", user: "root", partition: "", parent: "root", shares: 1, limits: {}, qos: [], defaultQos: "" });
  return state;
}

export function addQosRecord(state: AcctState, name: string, description: string): QosRecord {
  const q: QosRecord = {
    id: state.nextQosId++, name, description, priority: 0, limits: {}, preempt: [], preemptMode: "cluster", graceTimeSec: 0, usageFactor: 1,
  };
  state.qos.set(name, q);
  return q;
}

export function addAssocRecord(state: AcctState, a: Omit<AssocRecord, "id">): AssocRecord {
  const rec: AssocRecord = { ...a, id: state.nextAssocId++ };
  state.assocs.set(rec.id, rec);
  return rec;
}

/** The account's own association on a cluster. */
export function accountAssoc(state: AcctState, cluster: string, account: string): AssocRecord | undefined {
  return userAssoc(state, cluster, account, "", "");
}

/**
 * Associations by (cluster, account, user, partition), built once per AcctState
 * object: apply replaces the object on every change (it works on a copy), so
 * the index can never be stale, and lookups per job stay O(1) at scale.
 */
const assocIndex = new WeakMap<AcctState, { map: Map<string, AssocRecord>; size: number; nextId: number }>();
const assocKey = (cluster: string, account: string, user: string, partition: string): string =>
  `${cluster}\u0000${account}\u0000${user}\u0000${partition}`;

function indexOf(state: AcctState): Map<string, AssocRecord> {
  const cached = assocIndex.get(state);
  // Within one apply the copy is changed in place: an add moves nextAssocId, a delete shrinks the map.
  if (cached !== undefined && cached.size === state.assocs.size && cached.nextId === state.nextAssocId) return cached.map;
  const map = new Map<string, AssocRecord>();
  for (const a of state.assocs.values()) map.set(assocKey(a.cluster, a.account, a.user, a.partition), a);
  assocIndex.set(state, { map, size: state.assocs.size, nextId: state.nextAssocId });
  return map;
}

/** A user's association in an account (partition "" or the given one). */
export function userAssoc(state: AcctState, cluster: string, account: string, user: string, partition = ""): AssocRecord | undefined {
  const index = indexOf(state);
  const exact = index.get(assocKey(cluster, account, user, partition));
  if (exact !== undefined && state.assocs.get(exact.id) === exact) return exact;
  const any = index.get(assocKey(cluster, account, user, ""));
  return any !== undefined && state.assocs.get(any.id) === any ? any : undefined;
}

/** The chain from an association up to the cluster root (itself first). */
export function assocChain(state: AcctState, assoc: AssocRecord): AssocRecord[] {
  const chain = [assoc];
  let account = assoc.user === "" ? assoc.parent : assoc.account;
  for (let depth = 0; account !== "" && depth < 64; depth++) {
    const up = accountAssoc(state, assoc.cluster, account);
    if (up === undefined) break;
    chain.push(up);
    account = up.parent;
  }
  return chain;
}

/** Allowed QOS of an association: its own list, else the nearest ancestor's. */
export function allowedQos(state: AcctState, assoc: AssocRecord): string[] {
  for (const a of assocChain(state, assoc)) if (a.qos.length > 0) return a.qos;
  return ["normal"];
}

export function defaultQosOf(state: AcctState, assoc: AssocRecord): string {
  for (const a of assocChain(state, assoc)) if (a.defaultQos !== "") return a.defaultQos;
  return "normal";
}
