/**
 * @module sched/acct/apply-acct
 * The "acct" command: sacctmgr's add / modify / delete on clusters, accounts,
 * users, QOS and associations, applied to an AcctState. Pure and deterministic
 * (ids come from counters in the state), so the same log replays to the same
 * records; the controller also runs it on a copy to preview a change before
 * sacctmgr's confirmation prompt. Invalid requests change nothing.
 * The returned text is what sacctmgr prints for the change.
 */
import { ASSOC_LIMIT_SETTERS, QOS_LIMIT_SETTERS } from "./fields.ts";
import { assocRow } from "./acct-rows.ts";
import { assocAddLine, nonDefaultLines, unknownOptionText } from "./add-text.ts";
import {
  accountAssoc, addAssocRecord, addQosRecord, userAssoc, type AcctState, type AssocRecord, type QosRecord,
} from "./types.ts";

export interface AcctRequest {
  action: "add" | "modify" | "delete";
  entity: "account" | "user" | "qos" | "cluster" | "association";
  /** Names given after the entity (add/delete), e.g. `add account a,b`. */
  names: string[];
  /** Lower-cased keys: `where` conditions and `set` values. */
  where: Record<string, string>;
  set: Record<string, string>;
}

export interface AcctOutcome {
  /** "" on success; Slurm-worded otherwise. */
  error: string;
  /** What sacctmgr prints about the change (lines end with "\n"). */
  text: string;
  changed: number;
}

export const fail = (error: string): AcctOutcome => ({ error, text: "", changed: 0 });

/** sacctmgr add (the dispatcher, `applyAcct`, is in apply-acct-command.ts). */
export function addAcct(acct: AcctState, cluster: string, req: AcctRequest): AcctOutcome {
  const names = req.names.length > 0 ? req.names : splitList(req.set.name ?? req.set.names ?? "");
  if (names.length === 0) return fail(`No ${req.entity} name given`);
  switch (req.entity) {
    case "account":
      return addAccounts(acct, req.set.cluster ?? cluster, names, req.set);
    case "user":
      return addUsers(acct, req.set.cluster ?? cluster, names, req.set);
    case "qos":
      return addQos(acct, names, req.set);
    case "cluster":
      return addClusters(acct, names);
    case "association":
      return fail("Use 'add account' or 'add user' to add associations");
  }
}

export const splitList = (text: string): string[] => text.split(",").map((s) => s.trim()).filter(Boolean);

/** Apply association settings (shares, priority, limits, QOS); returns an error or "". */
export function setAssoc(acct: AcctState, a: AssocRecord, set: Record<string, string>): string {
  for (const [key, value] of Object.entries(set)) {
    if (key === "fairshare" || key === "shares") {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0) return `Invalid Fairshare: ${value}`;
      a.shares = n;
    } else if (key === "priority") {
      const n = Number(value);
      if (value === "-1") delete a.priority;
      else if (!Number.isInteger(n) || n < 0) return `Invalid Priority: ${value}`;
      else a.priority = n;
    } else if (key === "qos" || key === "qoslevel") {
      const list = splitList(value.replace(/^[+-]=?/, ""));
      for (const q of list) if (!acct.qos.has(q)) return `Invalid QOS name: ${q}`;
      a.qos = value.startsWith("+") ? [...new Set([...a.qos, ...list])] : value.startsWith("-") ? a.qos.filter((q) => !list.includes(q)) : list;
    } else if (key === "defaultqos") {
      if (value !== "" && value !== "-1" && !acct.qos.has(value)) return `Invalid QOS name: ${value}`;
      a.defaultQos = value === "-1" ? "" : value;
    } else if (ASSOC_LIMIT_SETTERS[key] !== undefined) {
      const why = ASSOC_LIMIT_SETTERS[key](a.limits, value);
      if (why !== undefined) return why;
    }
  }
  return "";
}

export const ASSOC_KEYS = new Set(["fairshare", "shares", "priority", "qos", "qoslevel", "defaultqos", ...Object.keys(ASSOC_LIMIT_SETTERS)]);
const ACCOUNT_KEYS = new Set([...ASSOC_KEYS, "description", "organization", "parent", "cluster", "name", "names"]);
const USER_KEYS = new Set([...ASSOC_KEYS, "account", "accounts", "defaultaccount", "adminlevel", "partition", "cluster", "name", "names"]);

const unknownKey = (set: Record<string, string>, allowed: ReadonlySet<string>): string | undefined =>
  Object.keys(set).find((k) => !allowed.has(k));

function addAccounts(acct: AcctState, cluster: string, names: string[], set: Record<string, string>): AcctOutcome {
  const bad = unknownKey(set, ACCOUNT_KEYS);
  if (bad !== undefined) return fail(unknownOptionText(bad, set[bad], true));
  if (!acct.clusters.includes(cluster)) return fail(`This cluster ${cluster} hasn't been added to accounting yet`);
  const parent = set.parent ?? "root";
  if (accountAssoc(acct, cluster, parent) === undefined) {
    return fail(` Parent account '${parent}' doesn't exist on cluster ${cluster}\n        Contact your admin to add this account.\n No associations created.`);
  }
  const fresh = names.filter((n) => accountAssoc(acct, cluster, n) === undefined);
  if (fresh.length === 0) return fail(" Nothing new added.");
  const lines = [" Adding Account(s)", ...fresh.map((n) => `  ${n}`), " Settings"];
  for (const name of fresh) {
    const description = set.description ?? name;
    const organization = set.organization ?? (parent === "root" ? name : acct.accounts.get(parent)?.organization ?? parent);
    if (!acct.accounts.has(name)) acct.accounts.set(name, { name, description, organization });
    const a = addAssocRecord(acct, { cluster, account: name, user: "", partition: "", parent, shares: 1, limits: {}, qos: [], defaultQos: "" });
    const why = setAssoc(acct, a, set);
    if (why !== "") return fail(why);
  }
  lines.push(`  Description     = ${set.description ?? "Account Name"}`, `  Organization    = ${set.organization ?? "Parent/Account Name"}`, " Associations");
  for (const name of fresh) lines.push(assocAddLine({ user: "", account: name, cluster, partition: "" }));
  lines.push(" Settings", `  Parent        = ${parent}`);
  return { error: "", text: `${lines.join("\n")}\n`, changed: fresh.length };
}

function addUsers(acct: AcctState, cluster: string, names: string[], set: Record<string, string>): AcctOutcome {
  const bad = unknownKey(set, USER_KEYS);
  if (bad !== undefined) return fail(unknownOptionText(bad, set[bad], false));
  const accounts = splitList(set.account ?? set.accounts ?? set.defaultaccount ?? "");
  if (accounts.length === 0) return fail(" Need name of account to add user to.");
  for (const a of accounts) if (accountAssoc(acct, cluster, a) === undefined) return fail(` This account ${a} doesn't exist.\n        Contact your admin to add this account.`);
  const partition = set.partition ?? "";
  const adminLevel = adminLevelOf(set.adminlevel ?? "None");
  if (adminLevel === undefined) return fail(`Invalid AdminLevel: ${set.adminlevel}`);
  const added: string[] = [];
  const assocLines: string[] = [];
  let first: AssocRecord | undefined;
  for (const name of names) {
    if (!acct.users.has(name)) {
      acct.users.set(name, { name, defaultAccount: set.defaultaccount ?? accounts[0] ?? "", adminLevel });
      added.push(name);
    }
    for (const account of accounts) {
      const existing = userAssoc(acct, cluster, account, name, partition);
      if (existing !== undefined && existing.partition === partition) continue;
      const a = addAssocRecord(acct, { cluster, account, user: name, partition, parent: account, shares: 1, limits: {}, qos: [], defaultQos: "" });
      const why = setAssoc(acct, a, set);
      if (why !== "") return fail(why);
      first ??= a;
      assocLines.push(assocAddLine({ user: name, account, cluster, partition }));
    }
  }
  if (added.length === 0 && assocLines.length === 0) return fail(" Nothing new added.");
  const lines: string[] = [];
  // the user records' settings given on the command line, then the associations' limits (oracle 22.05)
  const settings: string[] = [];
  if (set.defaultaccount !== undefined) settings.push(`  Default Account = ${set.defaultaccount}`);
  if (adminLevel !== "None") settings.push(`  Admin Level     = ${adminLevel}`);
  if (added.length > 0) lines.push(" Adding User(s)", ...added.map((n) => `  ${n}`), ...(settings.length > 0 ? [" Settings =", ...settings] : []));
  if (assocLines.length > 0) lines.push(" Associations =", ...assocLines);
  lines.push(" Non Default Settings", ...(first === undefined ? [] : nonDefaultLines(assocRow(acct, first), set)));
  return { error: "", text: `${lines.join("\n")}\n`, changed: added.length + assocLines.length };
}

export function adminLevelOf(text: string): string | undefined {
  const t = text.toLowerCase();
  if (t === "none") return "None";
  if (t === "operator") return "Operator";
  if (t === "admin" || t === "administrator") return "Administrator";
  return undefined;
}

const QOS_KEYS = new Set(["description", "priority", "preempt", "preemptmode", "gracetime", "usagefactor", "name", "names", ...Object.keys(QOS_LIMIT_SETTERS)]);

/** Apply QOS settings; returns an error or "". */
export function setQos(acct: AcctState, q: QosRecord, set: Record<string, string>): string {
  const bad = unknownKey(set, QOS_KEYS);
  if (bad !== undefined) return unknownOptionText(bad, set[bad], true);
  for (const [key, value] of Object.entries(set)) {
    if (key === "description") q.description = value;
    else if (key === "priority" || key === "gracetime" || key === "usagefactor") {
      const n = Number(value);
      if (!Number.isFinite(n) || n < 0) return `Invalid ${key}: ${value}`;
      if (key === "priority") q.priority = Math.floor(n);
      else if (key === "gracetime") q.graceTimeSec = Math.floor(n);
      else q.usageFactor = n;
    } else if (key === "preempt") {
      const list = splitList(value.replace(/^[+-]=?/, ""));
      for (const name of list) if (!acct.qos.has(name)) return `Invalid QOS name: ${name}`;
      q.preempt = value.startsWith("+") ? [...new Set([...q.preempt, ...list])] : value.startsWith("-") ? q.preempt.filter((p) => !list.includes(p)) : list;
    } else if (key === "preemptmode") {
      const m = value.toLowerCase();
      if (!["cluster", "cancel", "requeue", "suspend", "off"].includes(m)) return `Invalid PreemptMode: ${value}`;
      q.preemptMode = m;
    } else if (QOS_LIMIT_SETTERS[key] !== undefined) {
      const why = QOS_LIMIT_SETTERS[key](q.limits, value);
      if (why !== undefined) return why;
    }
  }
  return "";
}

function addQos(acct: AcctState, names: string[], set: Record<string, string>): AcctOutcome {
  const fresh = names.filter((n) => !acct.qos.has(n));
  if (fresh.length === 0) return fail(" Nothing new added.");
  for (const name of fresh) {
    const q = addQosRecord(acct, name, set.description ?? name);
    const why = setQos(acct, q, set);
    if (why !== "") return fail(why);
  }
  const lines = [" Adding QOS(s)", ...fresh.map((n) => `  ${n}`), " Settings", `  Description    = ${set.description ?? fresh[0]}`];
  return { error: "", text: `${lines.join("\n")}\n`, changed: fresh.length };
}

function addClusters(acct: AcctState, names: string[]): AcctOutcome {
  const fresh = names.filter((n) => !acct.clusters.includes(n));
  if (fresh.length === 0) return fail(" Nothing new added.");
  for (const name of fresh) {
    acct.clusters.push(name);
    addAssocRecord(acct, { cluster: name, account: "root", user: "", partition: "", parent: "", shares: 1, limits: {}, qos: ["normal"], defaultQos: "" });
    addAssocRecord(acct, { cluster: name, account: "root", user: "root", partition: "", parent: "root", shares: 1, limits: {}, qos: [], defaultQos: "" });
  }
  return { error: "", text: ` Adding Cluster(s)\n${fresh.map((n) => `  Name          = ${n}\n`).join("")}`, changed: fresh.length };
}
