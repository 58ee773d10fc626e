/**
 * @module cli/sreport-run
 * Which report a command line names (sreport's keywords and abbreviations, its error texts),
 * and running it: fetch what the report needs from the controller (jobs in the window, nodes,
 * the account tree, reservations) and hand it to the pure layouts in compat/format/sreport*.ts.
 */
import { parseConditions, type Conditions, type Family } from "./sreport-conditions.ts";
import { clusterUsage, clusterUtilizationText, reportWindow, userTopText, userUsage, type Style } from "../compat/format/sreport.ts";
import { accountByUserText, accountRows, usageByAssoc, userByAccountText, type AssocEntry } from "../compat/format/sreport-assoc.ts";
import { jobSizesText } from "../compat/format/sreport-sizes.ts";
import { reservationRollup, resvUtilizationText } from "../compat/format/sreport-resv.ts";
import { clusterTresCount, clusterTresSeconds, jobTresCount, parseTresOption, TRES_ORDER } from "../compat/format/sreport-tres.ts";
import { isoTimeText } from "../compat/format/time-memo.ts";
import type { CliPort, CliResult } from "./io.ts";
import type { Plain } from "../lib/plain.ts";
import type { ReservationInfo } from "../net/gen/spur/v1/controller_pb.ts";

export type ReportKind =
  | "cluster-utilization" | "cluster-account-by-user" | "cluster-user-by-account" | "user-top"
  | "job-sizes" | "job-sizes-wckey" | "job-sizes-account-wckey" | "resv-utilization";

/** What sreport's options gave (cli/sreport.ts parses them). */
export interface ReportOptions {
  tres: string;
  clusters: string[];
  style: Style;
  stderr: string;
}

const done = (stdout: string, stderr = "", exitCode = 0): CliResult => ({ stdout, stderr, exitCode });

const prefix = (word: string, name: string, min: number): boolean => word.length >= min && name.toLowerCase().startsWith(word.toLowerCase());

const CLUSTER_REPORTS = 'Valid cluster reports are, "AccountUtilizationByUser", "UserUtilizationByAccount", "UserUtilizationByWckey", "Utilization", and "WCKeyUtilizationByUser"\n';
const JOB_REPORTS = 'Valid job reports are, "SizesByAccount, SizesByAccountAndWcKey, and  SizesByWckey"\n';
const USER_REPORTS = 'Valid user reports are, "Top"\n';
const RESV_REPORTS = 'Valid reservation reports are, "Utilization"\n';

function clusterReport(r: string): ReportKind | undefined {
  if (prefix(r, "AccountUtilizationByUser", 1)) return "cluster-account-by-user";
  if (prefix(r, "UserUtilizationByAccount", 18) || prefix(r, "UA", 2)) return "cluster-user-by-account";
  if (prefix(r, "Utilization", 2)) return "cluster-utilization";
  return undefined;
}

function jobReport(r: string): ReportKind | undefined {
  if (prefix(r, "SizesByAccount", 1)) return "job-sizes";
  if (prefix(r, "SizesByWcKey", 1)) return "job-sizes-wckey";
  if (prefix(r, "SizesByAccountAndWcKey", 1)) return "job-sizes-account-wckey";
  return undefined;
}

/** The report a noun and report word name, or sreport's error text. */
export function reportKind(noun: string | undefined, report: string | undefined): ReportKind | { error: string } {
  const n = noun ?? "";
  const family = prefix(n, "cluster", 2) ? "cluster" : prefix(n, "job", 1) ? "job" : prefix(n, "user", 1) ? "user"
    : prefix(n, "reservation", 2) || prefix(n, "resv", 2) ? "resv" : undefined;
  if (family === undefined) return { error: `invalid keyword: ${n}\n` };
  if (report === undefined) return { error: `too few arguments for keyword:${n}\n` };
  const kind = family === "cluster" ? clusterReport(report) : family === "job" ? jobReport(report)
    : family === "user" ? (prefix(report, "topusage", 1) ? "user-top" : undefined)
    : prefix(report, "utilization", 1) ? "resv-utilization" : undefined;
  if (kind !== undefined) return kind;
  const valid = { cluster: CLUSTER_REPORTS, job: JOB_REPORTS, user: USER_REPORTS, resv: RESV_REPORTS }[family];
  return { error: `Not valid report ${report}\n${valid}` };
}

const FAMILY: Readonly<Record<ReportKind, Family>> = {
  "cluster-utilization": "cluster", "cluster-account-by-user": "assoc", "cluster-user-by-account": "assoc", "user-top": "user",
  "job-sizes": "job", "job-sizes-wckey": "job", "job-sizes-account-wckey": "job", "resv-utilization": "resv",
};

/** The first comma field of each user's GECOS in /etc/passwd (sreport's Proper Name). */
export async function properNames(port: CliPort): Promise<(user: string) => string> {
  const text = (await port.readFile("/etc/passwd")) ?? "";
  const names = new Map<string, string>();
  for (const line of text.split("\n")) {
    const fields = line.split(":");
    if (fields.length >= 5) names.set(fields[0] ?? "", (fields[4] ?? "").split(",")[0] ?? "");
  }
  return (user) => names.get(user) ?? "";
}

/** Accounts and their parents from the controller's association rows. */
async function accountTree(port: CliPort): Promise<AssocEntry[]> {
  if (port.ctl.acctList === undefined) return [];
  const res = await port.ctl.acctList({ entity: "association", where: {} });
  return res.rows.map((r) => ({ account: r.fields.account ?? "", user: r.fields.user ?? "", parent: r.fields.parentname ?? "" }));
}

/** The controller's reservations (none for another cluster, or a controller without them). */
async function reservations(port: CliPort, ours: boolean): Promise<Plain<ReservationInfo>[]> {
  if (!ours || port.ctl.listReservations === undefined) return [];
  return (await port.ctl.listReservations({})).reservations;
}

/** Run one report; errors talking to the controller propagate to the caller. */
export async function runReport(kind: ReportKind, words: readonly string[], o: ReportOptions, port: CliPort): Promise<CliResult> {
  const now = Math.floor(port.now());
  const c = parseConditions(words, now, FAMILY[kind]);
  const w = reportWindow(c.start, c.end, now);
  const [jobs, nodes] = await Promise.all([
    port.ctl.listJobs({ includeFinished: true, windowStart: w.start, windowEnd: w.end }),
    port.ctl.listNodes(),
  ]);
  const cluster = jobs.clusterName;
  const asked = [...o.clusters, ...c.clusters].filter((name) => name !== "");
  const ours = asked.length === 0 || asked.includes(cluster);
  const tracked = [...TRES_ORDER, "gres/gpu"];
  const tres = o.tres === "" ? ["cpu"] : parseTresOption(o.tres, tracked);
  if (typeof tres === "string") return done("", `${o.stderr}${tres}\n`, 1);
  const status = (extra = ""): number => (c.stderr === "" && extra === "" ? 0 : 1);
  const out = (text: string, extra = ""): CliResult => done(text, `${o.stderr}${c.stderr}${extra}`, status(extra));
  const mine = ours ? jobs.jobs.filter((j) => selected(j, c)) : [];
  const time = (t: number): string => isoTimeText(t);
  switch (kind) {
    case "cluster-utilization": {
      const held = reservationRollup(await reservations(port, ours), jobs.jobs, [], w, now).held;
      const reservedFor = (t: string) => (t === "cpu" ? held : { allocated: 0, plannedDown: 0, names: held.names });
      // a cluster with no time in the window (not yet registered) has no line, as in slurmdbd
      const rows = ours && clusterTresSeconds(nodes.nodes, "cpu", w) > 0
        ? tres.map((t) => clusterUsage(cluster, jobs.jobs, clusterTresCount(nodes.nodes, t), w, now, (j) => jobTresCount(j, t), t, reservedFor(t), clusterTresSeconds(nodes.nodes, t, w)))
        : [];
      return out(clusterUtilizationText(rows, w, o.style, time, o.tres !== ""));
    }
    case "user-top": {
      const [names, tree, resvs] = await Promise.all([properNames(port), accountTree(port), reservations(port, ours)]);
      const usage = clusterUsage(cluster, jobs.jobs, clusterTresCount(nodes.nodes, "cpu"), w, now, undefined, "cpu", undefined, clusterTresSeconds(nodes.nodes, "cpu", w));
      const inAccounts = mine.filter((j) => c.accounts.length === 0 || c.accounts.includes(j.account));
      const idle = new Map([...reservationRollup(resvs, jobs.jobs, tree, w, now).idleByAssoc].filter(([k]) => {
        const [account = "", user = ""] = k.split("\u0000");
        return (c.accounts.length === 0 || c.accounts.includes(account)) && (c.users.length === 0 || c.users.includes(user));
      }));
      if (o.tres === "") return out(userTopText(usage, userUsage(inAccounts, w, now, undefined, c.group, idle), c.top, w, o.style, names, time));
      // every user (and account) with any use is listed; ranked by the first TRES asked for, ties
      // by user name from the last (oracle: spurtest before root at 0 GPU-seconds)
      const keyOf = (r: { user: string; accounts: string[] }): string => `${r.user}\u0000${r.accounts.join(",")}`;
      const everyone = userUsage(inAccounts, w, now, undefined, c.group, idle);
      const per = tres.map((t) => {
        const rows = userUsage(inAccounts, w, now, (j) => jobTresCount(j, t), c.group, t === "cpu" ? idle : undefined);
        const byKey = new Map(rows.map((r) => [keyOf(r), r.used]));
        return { name: t, reported: clusterTresSeconds(nodes.nodes, t, w), byKey };
      });
      const first = per[0]?.byKey ?? new Map<string, number>();
      const ranked = [...everyone].sort((a, b) => (first.get(keyOf(b)) ?? 0) - (first.get(keyOf(a)) ?? 0) || (a.user < b.user ? 1 : a.user > b.user ? -1 : 0)
        || (a.accounts.join() < b.accounts.join() ? -1 : 1));
      return out(userTopText(usage, ranked, c.top, w, o.style, names, time, per.map((p) => ({ ...p, usedBy: (r: { user: string; accounts: string[] }) => p.byKey.get(keyOf(r)) ?? 0 }))));
    }
    case "cluster-account-by-user":
    case "cluster-user-by-account": {
      const [tree, names, resvs] = await Promise.all([accountTree(port), properNames(port), reservations(port, ours)]);
      // the CPU time reservations held unused counts as use of the associations they admit (rollup)
      const idle = reservationRollup(resvs, jobs.jobs, tree, w, now).idleByAssoc;
      const withIdle = (t: string): Map<string, number> => {
        const u = usageByAssoc(mine, t, w, now);
        if (t === "cpu") for (const [k, secs] of idle) if (secs > 0) u.set(k, (u.get(k) ?? 0) + secs);
        return u;
      };
      const usage = tres.map(withIdle);
      const input = {
        cluster, rows: accountRows(tree, usage, { accounts: c.accounts, users: c.users }, withIdle("cpu")), tres,
        totals: tres.map((t) => clusterTresSeconds(nodes.nodes, t, w)), tresGiven: o.tres !== "",
      };
      const r = kind === "cluster-account-by-user"
        ? accountByUserText(input, c.format, o.style, w, names, time, c.tree)
        : userByAccountText(input, c.format, o.style, w, names, time);
      return out(r.text, r.stderr);
    }
    case "job-sizes":
    case "job-sizes-wckey":
    case "job-sizes-account-wckey": {
      if (tres.length > 1) return done("", `${o.stderr}${c.stderr} Job report only supports a single --tres type.\n Generate a separate report for each TRES type.\n`, 1);
      const tree = c.flat ? [] : await accountTree(port);
      const parents = new Map(tree.filter((a) => a.user === "").map((a) => [a.account, a.parent]));
      const opts = {
        grouping: c.grouping ?? [50, 250, 500, 1000], flat: c.flat, printJobCount: c.printJobCount, accounts: c.accounts,
        withWckey: kind === "job-sizes-account-wckey", byWckey: kind === "job-sizes-wckey", tres: tres[0] ?? "cpu", tresGiven: o.tres !== "",
      };
      const r = jobSizesText(cluster, mine, w, now, opts, o.style, (a) => parents.get(a), time);
      return out(r.text, r.stderr);
    }
    case "resv-utilization": {
      const resvs = await reservations(port, ours);
      return out(resvUtilizationText(cluster, resvs, jobs.jobs, w, now, { names: c.names, tres }, o.style, time));
    }
  }
}

/** The job conditions every report applies: Users=, Partitions=, WCKeys= (accounts are per report). */
function selected(job: { user: string; partition: string; wckey: string; account: string }, c: Conditions): boolean {
  if (c.users.length > 0 && !c.users.includes(job.user)) return false;
  if (c.partitions.length > 0 && !c.partitions.includes(job.partition)) return false;
  return c.wckeys.length === 0 || c.wckeys.includes(job.wckey);
}
