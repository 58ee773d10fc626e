/**
 * @module sched/acct/modify-acct
 * sacctmgr's `modify <entity> where ... set ...` and `delete <entity> ...` on an
 * AcctState. Matching follows sacctmgr: names (or Name=/Names=), Account=,
 * User=, Partition=, Cluster=. Deleting an account removes its associations and
 * those below it; root cannot be deleted. Nothing is changed on an error.
 */
import { unknownOptionText } from "./add-text.ts";
import { ASSOC_KEYS, adminLevelOf, fail, setAssoc, setQos, splitList, type AcctOutcome, type AcctRequest } from "./apply-acct.ts";
import { accountAssoc, assocChain, type AcctState, type AssocRecord } from "./types.ts";

const listOf = (m: Record<string, string>, ...keys: string[]): string[] => keys.flatMap((k) => splitList(m[k] ?? ""));

function selectAssocs(acct: AcctState, cluster: string, req: AcctRequest, userAssocs: boolean): AssocRecord[] {
  const names = [...req.names, ...listOf(req.where, "name", "names")];
  const accounts = listOf(req.where, "account", "accounts");
  const users = listOf(req.where, "user", "users");
  const clusters = listOf(req.where, "cluster", "clusters");
  const partitions = listOf(req.where, "partition", "partitions");
  const ids = listOf(req.where, "id").map(Number);
  const out: AssocRecord[] = [];
  for (const a of acct.assocs.values()) {
    if ((clusters.length > 0 ? !clusters.includes(a.cluster) : a.cluster !== cluster)) continue;
    if ((a.user !== "") !== userAssocs && req.entity !== "association") continue;
    if (req.entity === "account" && names.length > 0 && !names.includes(a.account)) continue;
    if (req.entity === "user" && names.length > 0 && !names.includes(a.user)) continue;
    if (accounts.length > 0 && !accounts.includes(a.account)) continue;
    if (users.length > 0 && !users.includes(a.user)) continue;
    if (partitions.length > 0 && !partitions.includes(a.partition)) continue;
    if (ids.length > 0 && !ids.includes(a.id)) continue;
    out.push(a);
  }
  return out;
}

const assocLine = (a: AssocRecord): string =>
  `  C = ${a.cluster.padEnd(10)} A = ${a.account.padEnd(10)}${a.user ? ` U = ${a.user.padEnd(9)}` : ""}${a.partition ? ` P = ${a.partition}` : ""}`;

const assocSet = (set: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(set).filter(([k]) => ASSOC_KEYS.has(k)));

export function modifyAcct(acct: AcctState, cluster: string, req: AcctRequest): AcctOutcome {
  if (Object.keys(req.set).length === 0) return fail(" You didn't give me anything to set");
  if (req.entity === "qos") return modifyQos(acct, req);
  if (req.entity === "cluster") return fail(" Nothing to modify on a cluster here");
  const isUser = req.entity === "user";
  const names = [...req.names, ...listOf(req.where, "name", "names")];
  if (names.length === 0 && Object.keys(req.where).length === 0) return fail(" No conditions given: use 'where' to say what to modify");
  const assocs = selectAssocs(acct, cluster, req, isUser);
  const lines: string[] = [];
  let changed = 0;
  const recordKeys = isUser ? ["defaultaccount", "adminlevel"] : ["description", "organization"];
  const recordSet = Object.entries(req.set).filter(([k]) => recordKeys.includes(k));
  if (recordSet.length > 0) {
    const targets = isUser ? [...new Set(names.length > 0 ? names : assocs.map((a) => a.user))] : [...new Set(names.length > 0 ? names : assocs.map((a) => a.account))];
    const done: string[] = [];
    for (const name of targets) {
      const why = isUser ? setUserRecord(acct, cluster, name, Object.fromEntries(recordSet)) : setAccountRecord(acct, name, Object.fromEntries(recordSet));
      if (why === undefined) continue;
      if (why !== "") return fail(why);
      done.push(name);
    }
    if (done.length > 0) lines.push(isUser ? " Modified users..." : " Modified accounts...", ...done.map((n) => `  ${n}`));
    changed += done.length;
  }
  const aset = assocSet(req.set);
  if (req.set.parent !== undefined && !isUser) {
    const why = reparent(acct, assocs, req.set.parent);
    if (why !== "") return fail(why);
  }
  const unknown = Object.keys(req.set).find((k) => !ASSOC_KEYS.has(k) && !recordKeys.includes(k) && k !== "parent");
  if (unknown !== undefined) return fail(unknownOptionText(unknown, req.set[unknown], true));
  if (Object.keys(aset).length > 0 || (req.set.parent !== undefined && !isUser)) {
    for (const a of assocs) {
      const why = setAssoc(acct, a, aset);
      if (why !== "") return fail(why);
    }
    if (assocs.length > 0) lines.push(isUser ? " Modified user associations..." : " Modified account associations...", ...assocs.map(assocLine));
    changed += assocs.length;
  }
  if (changed === 0) return fail(" Nothing modified");
  return { error: "", text: `${lines.join("\n")}\n`, changed };
}

/** undefined = no such record (skipped); "" = changed; else an error. */
function setUserRecord(acct: AcctState, cluster: string, name: string, set: Record<string, string>): string | undefined {
  const u = acct.users.get(name);
  if (u === undefined) return undefined;
  if (set.defaultaccount !== undefined) {
    const has = [...acct.assocs.values()].some((a) => a.cluster === cluster && a.user === name && a.account === set.defaultaccount);
    if (!has) return ` User ${name} does not have an association with account ${set.defaultaccount}`;
    u.defaultAccount = set.defaultaccount;
  }
  if (set.adminlevel !== undefined) {
    const level = adminLevelOf(set.adminlevel);
    if (level === undefined) return `Invalid AdminLevel: ${set.adminlevel}`;
    u.adminLevel = level;
  }
  return "";
}

function setAccountRecord(acct: AcctState, name: string, set: Record<string, string>): string | undefined {
  const a = acct.accounts.get(name);
  if (a === undefined) return undefined;
  if (set.description !== undefined) a.description = set.description;
  if (set.organization !== undefined) a.organization = set.organization;
  return "";
}

function reparent(acct: AcctState, assocs: AssocRecord[], parent: string): string {
  for (const a of assocs) {
    if (a.account === "root") return " Can't change the parent of root";
    const up = accountAssoc(acct, a.cluster, parent);
    if (up === undefined) return ` Parent account ${parent} doesn't exist.`;
    if (assocChain(acct, up).some((x) => x.id === a.id)) return ` Can't move account ${a.account} under its own child ${parent}`;
  }
  for (const a of assocs) a.parent = parent;
  return "";
}

function modifyQos(acct: AcctState, req: AcctRequest): AcctOutcome {
  const names = [...req.names, ...listOf(req.where, "name", "names")];
  const targets = names.length > 0 ? names.filter((n) => acct.qos.has(n)) : [...acct.qos.keys()];
  if (targets.length === 0) return fail(" Nothing modified");
  for (const name of targets) {
    const why = setQos(acct, acct.qos.get(name) as NonNullable<ReturnType<typeof acct.qos.get>>, req.set);
    if (why !== "") return fail(why);
  }
  return { error: "", text: ` Modified qos...\n${targets.map((n) => `  ${n}\n`).join("")}`, changed: targets.length };
}

export function deleteAcct(acct: AcctState, cluster: string, req: AcctRequest): AcctOutcome {
  const names = [...req.names, ...listOf(req.where, "name", "names")];
  if (req.entity === "qos") {
    const gone = names.filter((n) => acct.qos.has(n));
    if (gone.length === 0) return fail(" Nothing deleted");
    for (const n of gone) acct.qos.delete(n);
    for (const a of acct.assocs.values()) {
      a.qos = a.qos.filter((q) => !gone.includes(q));
      if (gone.includes(a.defaultQos)) a.defaultQos = "";
    }
    for (const q of acct.qos.values()) q.preempt = q.preempt.filter((p) => !gone.includes(p));
    return { error: "", text: ` Deleting QOS(s)...\n${gone.map((n) => `  ${n}\n`).join("")}`, changed: gone.length };
  }
  if (req.entity === "cluster") {
    const gone = names.filter((n) => acct.clusters.includes(n) && n !== cluster);
    if (gone.length === 0) return fail(" Nothing deleted");
    acct.clusters = acct.clusters.filter((c) => !gone.includes(c));
    for (const [id, a] of [...acct.assocs]) if (gone.includes(a.cluster)) acct.assocs.delete(id);
    return { error: "", text: ` Deleting clusters...\n${gone.map((n) => `  ${n}\n`).join("")}`, changed: gone.length };
  }
  if (names.length === 0 && Object.keys(req.where).length === 0) return fail(" No conditions given: use 'where' to say what to delete");
  if (req.entity === "account" && names.includes("root")) return fail(" You can't delete the root account");
  const isUser = req.entity === "user";
  const direct = selectAssocs(acct, cluster, req, isUser);
  const doomed = new Set<number>(direct.map((a) => a.id));
  if (!isUser) {
    // An account's subtree goes with it: child accounts and every user association below.
    for (const a of acct.assocs.values()) if (assocChain(acct, a).some((x) => x.id !== a.id && doomed.has(x.id))) doomed.add(a.id);
  }
  if (doomed.size === 0) return fail(" Nothing deleted");
  const lines = [isUser ? " Deleting user associations..." : " Deleting account associations..."];
  for (const id of [...doomed].sort((x, y) => x - y)) {
    lines.push(assocLine(acct.assocs.get(id) as AssocRecord));
    acct.assocs.delete(id);
  }
  const stillUsed = (pred: (a: AssocRecord) => boolean): boolean => [...acct.assocs.values()].some(pred);
  for (const name of [...acct.users.keys()]) if (!stillUsed((a) => a.user === name)) acct.users.delete(name);
  for (const name of [...acct.accounts.keys()]) if (!stillUsed((a) => a.account === name)) acct.accounts.delete(name);
  return { error: "", text: `${lines.join("\n")}\n`, changed: doomed.size };
}
