/**
 * @module sched/acct/acct-rows
 * Accounting records as the rows `sacctmgr show` prints: one map per record
 * from lower-cased sacctmgr field name to its text (TRES in Slurm's order and
 * units, wall limits as [D-]HH:MM:SS, unset limits empty). Associations come
 * in tree order (each account's users, then its sub-accounts), as Slurm lists
 * them. Filters are sacctmgr's `where` keys.
 */
import type { ClusterState } from "../model/types.ts";
import { tresOut, wallOut } from "./fields.ts";
import { BASE_TRES_COUNT, trackedTres } from "./share-columns.ts";
import { allowedQos, type AcctState, type AssocRecord, type QosRecord } from "./types.ts";

export type Row = Record<string, string>;

const list = (w: Record<string, string>, ...keys: string[]): string[] =>
  keys.flatMap((k) => (w[k] ?? "").split(",").map((s) => s.trim()).filter(Boolean));

const num = (n: number | undefined): string => (n === undefined ? "" : String(n));

export function acctRows(state: ClusterState, entity: string, where: Record<string, string>): Row[] | string {
  const acct = state.acct;
  switch (entity) {
    case "account":
      return accountRows(acct, where);
    case "user":
      return userRows(acct, where);
    case "qos":
      return qosRows(acct, where);
    case "association":
      return assocRows(state, where);
    case "cluster":
      return acct.clusters.filter((c) => keep(list(where, "name", "names", "cluster"), c)).map((c) => clusterRow(state, c));
    case "tres":
      return tresRows(state).filter((r) => keep(list(where, "type"), r.type ?? "") && keep(list(where, "name", "names"), r.name ?? ""));
    default:
      return ` Unknown entity '${entity}'`;
  }
}

/**
 * The TRES the accounting database knows: Slurm's eight, with their fixed ids, then those the
 * cluster tracks besides (gres/gpu, licenses ...) from id 1001 in the order they are tracked.
 */
function tresRows(state: ClusterState): Row[] {
  return trackedTres(state).map((t, i) => {
    const slash = t.indexOf("/");
    return { type: slash < 0 ? t : t.slice(0, slash), name: slash < 0 ? "" : t.slice(slash + 1), id: String(i < BASE_TRES_COUNT ? i + 1 : 1001 + i - BASE_TRES_COUNT) };
  });
}

const keep = (wanted: string[], value: string): boolean => wanted.length === 0 || wanted.includes(value);

function accountRows(acct: AcctState, where: Record<string, string>): Row[] {
  const names = list(where, "name", "names", "account", "accounts");
  return [...acct.accounts.values()]
    .filter((a) => keep(names, a.name))
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((a) => ({ account: a.name, descr: a.description, description: a.description, org: a.organization, organization: a.organization }));
}

function userRows(acct: AcctState, where: Record<string, string>): Row[] {
  const names = list(where, "name", "names", "user", "users");
  const accounts = list(where, "account", "accounts", "defaultaccount");
  return [...acct.users.values()]
    .filter((u) => keep(names, u.name) && keep(accounts, u.defaultAccount))
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((u) => ({ user: u.name, "def acct": u.defaultAccount, defaultaccount: u.defaultAccount, admin: u.adminLevel, adminlevel: u.adminLevel }));
}

export function qosRow(acct: AcctState, q: QosRecord): Row {
  const l = q.limits;
  return {
    name: q.name, id: String(q.id), description: q.description, descr: q.description, priority: String(q.priority),
    gracetime: wallOut(q.graceTimeSec / 60), preempt: q.preempt.join(","), preemptexempttime: "",
    preemptmode: q.preemptMode, flags: "", usagethres: "", usagefactor: q.usageFactor.toFixed(6),
    grptres: tresOut(l.grpTres), grptresmins: tresOut(l.grpTresMins), grptresrunmin: "", grpjobs: num(l.grpJobs), grpsubmit: num(l.grpSubmitJobs),
    grpwall: wallOut(l.grpWallMin), maxtres: tresOut(l.maxTresPerJob), maxtrespernode: "", maxtresmins: tresOut(l.maxTresMinsPerJob), maxwall: wallOut(l.maxWallMin),
    maxtrespu: tresOut(l.maxTresPerUser), maxjobspu: num(l.maxJobsPerUser), maxsubmitpu: num(l.maxSubmitJobsPerUser),
    maxtrespa: "", maxjobspa: "", maxsubmitpa: "", mintres: "",
  };
}

function qosRows(acct: AcctState, where: Record<string, string>): Row[] {
  const names = list(where, "name", "names", "qos");
  return [...acct.qos.values()].filter((q) => keep(names, q.name)).sort((a, b) => a.id - b.id).map((q) => qosRow(acct, q));
}

/** Each account's own association (no user, no partition), by cluster and account: parents are looked up here. */
type AccountAssocs = Map<string, AssocRecord>;
const accountKey = (cluster: string, account: string): string => `${cluster}\u0000${account}`;

function accountAssocs(acct: AcctState): AccountAssocs {
  const out: AccountAssocs = new Map();
  for (const a of acct.assocs.values()) if (a.user === "" && a.partition === "") out.set(accountKey(a.cluster, a.account), a);
  return out;
}

export function assocRow(acct: AcctState, a: AssocRecord, accounts: AccountAssocs = accountAssocs(acct)): Row {
  const l = a.limits;
  const qos = allowedQos(acct, a);
  return {
    cluster: a.cluster, account: a.account, user: a.user, partition: a.partition, share: String(a.shares), fairshare: String(a.shares),
    priority: num(a.priority), grpjobs: num(l.grpJobs), grptres: tresOut(l.grpTres), grpsubmit: num(l.grpSubmitJobs),
    grpwall: wallOut(l.grpWallMin), grptresmins: tresOut(l.grpTresMins), maxjobs: num(l.maxJobs), maxtres: tresOut(l.maxTresPerJob),
    maxtrespernode: "", maxsubmit: num(l.maxSubmitJobs), maxwall: wallOut(l.maxWallMin), maxtresmins: tresOut(l.maxTresMinsPerJob),
    qos: [...qos].sort().join(","), "def qos": a.defaultQos, defaultqos: a.defaultQos, grptresrunmin: "",
    id: String(a.id), parentname: a.user === "" ? a.parent : "", parentid: String(parentOf(accounts, a)?.id ?? 0),
    // not a Slurm field (format= cannot name it): how deep the association sits, for `show assoc tree`
    depth: String(depthOf(accounts, a)),
  };
}

/** The association above `a`: a user's is its account's, an account's its parent account's; root has none. */
function parentOf(accounts: AccountAssocs, a: AssocRecord): AssocRecord | undefined {
  const account = a.user !== "" ? a.account : a.parent;
  if (account === "" || (a.user === "" && account === a.account)) return undefined;
  return accounts.get(accountKey(a.cluster, account));
}

function depthOf(accounts: AccountAssocs, a: AssocRecord): number {
  let depth = 0;
  for (let p = parentOf(accounts, a); p !== undefined && depth < 64; p = parentOf(accounts, p)) depth++;
  return depth;
}

/** Tree order from each cluster's root: an account, its users, then its sub-accounts. */
export function assocsInTreeOrder(acct: AcctState, cluster: string): AssocRecord[] {
  const out: AssocRecord[] = [];
  const all = [...acct.assocs.values()].filter((a) => a.cluster === cluster);
  const visit = (account: string, depth: number): void => {
    const own = all.find((a) => a.account === account && a.user === "");
    if (own === undefined || depth > 64) return;
    out.push(own);
    const users = all.filter((a) => a.account === account && a.user !== "").sort((x, y) => (x.user < y.user ? -1 : x.user > y.user ? 1 : x.partition < y.partition ? -1 : 1));
    out.push(...users);
    const subs = all.filter((a) => a.user === "" && a.parent === account && a.account !== account).sort((x, y) => (x.account < y.account ? -1 : 1));
    for (const s of subs) visit(s.account, depth + 1);
  };
  visit("root", 0);
  return out;
}

/**
 * The database's order (slurmdbd's lft): a depth-first walk where each new association is
 * placed first among its parent's children, so the newest sibling comes first, users and
 * sub-accounts alike. sacctmgr keeps this order when it lists a user's associations
 * (oracle 22.05: `show assoc user=root` lists srpa before root, the tree order root before srpa).
 */
export function assocsInDbOrder(acct: AcctState, cluster: string): AssocRecord[] {
  const out: AssocRecord[] = [];
  const all = [...acct.assocs.values()].filter((a) => a.cluster === cluster);
  const visit = (own: AssocRecord, depth: number): void => {
    out.push(own);
    if (own.user !== "" || depth > 64) return;
    const children = all.filter((a) => a !== own && (a.user !== "" ? a.account === own.account : a.parent === own.account && a.account !== own.account));
    for (const c of children.sort((x, y) => y.id - x.id)) visit(c, depth + 1);
  };
  const root = all.find((a) => a.account === "root" && a.user === "");
  if (root !== undefined) visit(root, 0);
  return out;
}

function assocRows(state: ClusterState, where: Record<string, string>): Row[] {
  const acct = state.acct;
  const clusters = list(where, "cluster", "clusters");
  const accounts = list(where, "account", "accounts");
  const users = list(where, "user", "users");
  const partitions = list(where, "partition", "partitions");
  const ids = list(where, "id");
  const parents = accountAssocs(acct);
  const rows: Row[] = [];
  for (const c of acct.clusters) {
    if (!keep(clusters, c)) continue;
    // `show assoc tree` lists in tree order whatever the filter (sacctmgr's hierarchical sort)
    for (const a of users.length > 0 && where.tree === undefined ? assocsInDbOrder(acct, c) : assocsInTreeOrder(acct, c)) {
      if (!keep(accounts, a.account) || !keep(partitions, a.partition) || !keep(ids, String(a.id))) continue;
      if (users.length > 0 && !users.includes(a.user)) continue;
      rows.push(assocRow(acct, a, parents));
    }
  }
  return rows;
}

function clusterRow(state: ClusterState, cluster: string): Row {
  const root = [...state.acct.assocs.values()].find((a) => a.cluster === cluster && a.account === "root" && a.user === "");
  const base = root === undefined ? {} : assocRow(state.acct, root);
  return { ...base, cluster, controlhost: "", controlport: "0", rpc: "0", share: "1", fedstate: "NA", nodecount: String(state.nodes.size) };
}
