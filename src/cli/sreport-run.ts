/**
 * @module cli/sreport-run
 * Which report a command line names (sreport's keywords and abbreviations, its error texts),
 * and running it: fetch what the report needs from the controller (jobs in the window, nodes,
 * the account tree, reservations) and hand it to the pure layouts in compat/format/sreport*.ts.
 */
import { parseConditions, type Conditions, type Family } from "./sreport-conditions.ts";
import { reportWindow } from "../compat/format/sreport.ts";
import type { AssocEntry } from "../compat/format/sreport-assoc.ts";
import { resvUtilizationText } from "../compat/format/sreport-resv.ts";
import { parseTresOption, TRES_ORDER } from "../compat/format/sreport-tres.ts";
import {
  assocReport, clusterUtilizationReport, sizesReport, userTopReport, type ReportContext, type ReportKind, type ReportOptions,
} from "./sreport-reports.ts";
import { isoTimeText } from "../compat/format/time-memo.ts";
import type { CliPort, CliResult } from "../net/ctl-port.ts";
import type { Plain } from "../lib/plain.ts";
import type { ReservationInfo } from "../net/gen/spur/v1/controller_pb.ts";

export type { ReportKind, ReportOptions };

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

/**
 * A reservation's Associations field: the ids of the user associations it admits, its users in
 * their order, each user's by id (oracle: users=root,spurtest gives "2,8,5,6").
 */
async function assocIdsOf(port: CliPort): Promise<(r: { users: string[]; accounts: string[] }) => string> {
  if (port.ctl.acctList === undefined) return () => "";
  const rows = (await port.ctl.acctList({ entity: "association", where: {} })).rows.map((row) => row.fields);
  return (r) => {
    const users = r.users.length > 0 ? r.users : [...new Set(rows.map((a) => a.user ?? "").filter((u) => u !== ""))];
    return users.flatMap((u) => rows
      .filter((a) => a.user === u && (r.accounts.length === 0 || r.accounts.includes(a.account ?? "")))
      .map((a) => Number(a.id ?? 0)).sort((x, y) => x - y)).join(",");
  };
}

/** The controller's reservations (none for another cluster, or a controller without them). */
async function reservations(port: CliPort, ours: boolean): Promise<Plain<ReservationInfo>[]> {
  if (!ours || port.ctl.listReservations === undefined) return [];
  // Connect's JSON leaves out empty lists and zero numbers: put them back
  return ((await port.ctl.listReservations({ withDeleted: true })).reservations ?? []).map((r) => ({
    ...r, users: r.users ?? [], accounts: r.accounts ?? [], flags: r.flags ?? [], coreCount: r.coreCount ?? 0, nodes: r.nodes ?? "",
    startTime: r.startTime ?? 0, endTime: r.endTime ?? 0,
  }));
}

/** Run one report; errors talking to the controller propagate to the caller. */
export async function runReport(kind: ReportKind, words: readonly string[], o: ReportOptions, port: CliPort): Promise<CliResult> {
  const now = Math.floor(port.now());
  const c = parseConditions(words, now, FAMILY[kind]);
  const w = reportWindow(c.start, c.end, now);
  const [jobs, nodes] = await Promise.all([
    port.ctl.listJobs({ includeFinished: true, windowStart: w.start, windowEnd: w.end }),
    port.ctl.listNodes({ withDownSpans: true }),
  ]);
  const asked = [...o.clusters, ...c.clusters].filter((name) => name !== "");
  const ours = asked.length === 0 || asked.includes(jobs.clusterName);
  const tres = o.tres === "" ? ["cpu"] : parseTresOption(o.tres, [...TRES_ORDER, "gres/gpu"]);
  if (typeof tres === "string") return done("", `${o.stderr}${tres}\n`, 1);
  const x: ReportContext = {
    kind, c, o, w, now, port, ours, tres, cluster: jobs.clusterName, all: jobs.jobs, nodes: nodes.nodes,
    // Connect's JSON leaves out empty lists and zero numbers: put them back
    downSpans: ours ? (nodes.downSpans ?? []).map((d) => ({ node: d.node ?? "", start: d.start ?? 0, end: d.end ?? 0 })) : [],
    mine: ours ? jobs.jobs.filter((j) => selected(j, c)) : [],
    time: (t) => isoTimeText(t),
    out: (text, extra = "") => done(text, `${o.stderr}${c.stderr}${extra}`, c.stderr === "" && extra === "" ? 0 : 1),
    reservations: () => reservations(port, ours),
    accountTree: () => accountTree(port),
    properNames: () => properNames(port),
  };
  switch (kind) {
    case "cluster-utilization":
      return clusterUtilizationReport(x);
    case "user-top":
      return userTopReport(x);
    case "cluster-account-by-user":
    case "cluster-user-by-account":
      return assocReport(x);
    case "job-sizes":
    case "job-sizes-wckey":
    case "job-sizes-account-wckey":
      return sizesReport(x);
    case "resv-utilization": {
      const [resvs, ids] = await Promise.all([x.reservations(), c.format.length > 0 ? assocIdsOf(port) : undefined]);
      const r = resvUtilizationText(x.cluster, resvs, x.all, w, now, { names: c.names, tres, format: c.format, ...(ids ? { assocIds: ids } : {}) }, o.style, x.time);
      return x.out(r.text, r.stderr);
    }
  }
}

/** The job conditions every report applies: Users=, Partitions=, WCKeys= (accounts are per report). */
function selected(job: { user: string; partition: string; wckey: string; account: string }, c: Conditions): boolean {
  if (c.users.length > 0 && !c.users.includes(job.user)) return false;
  if (c.partitions.length > 0 && !c.partitions.includes(job.partition)) return false;
  return c.wckeys.length === 0 || c.wckeys.includes(job.wckey);
}
