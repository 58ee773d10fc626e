/**
 * @module cli/sreport-reports
 * One function per sreport report family: given what the report needs (the jobs in the window,
 * nodes, conditions, and lazy fetches of the account tree, reservations and proper names), the
 * pure layouts of compat/format/sreport*.ts print it. Where slurmdbd's hourly rollup decides a
 * figure (reservation time, planned time), the rule is in those layouts; see docs/accounting.md.
 */
import type { Plain } from "../lib/plain.ts";
import type { JobInfo, NodeInfo } from "../net/gen/spur/v1/types_pb.ts";
import type { ReservationInfo } from "../net/gen/spur/v1/controller_pb.ts";
import type { Conditions } from "./sreport-conditions.ts";
import type { CliPort, CliResult } from "../net/ctl-port.ts";
import { clusterUtilizationText } from "../compat/format/sreport-utilization.ts";
import { clusterUsage, userTopText, userUsage, type Style, type UserUsage, type Window } from "../compat/format/sreport.ts";
import { accountByUserText, accountRows, usageByAssoc, userByAccountText, type AssocEntry } from "../compat/format/sreport-assoc.ts";
import { jobSizesText } from "../compat/format/sreport-sizes.ts";
import { reservationRollup } from "../compat/format/sreport-resv.ts";
import { clusterTresCount, clusterTresSeconds, jobTresCount, type DownSpan } from "../compat/format/sreport-tres.ts";
import { downCharges } from "../compat/format/sreport-down.ts";

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

/** Everything a report reads, fetched once by sreport-run.ts. */
export interface ReportContext {
  kind: ReportKind;
  c: Conditions;
  o: ReportOptions;
  w: Window;
  now: number;
  port: CliPort;
  /** The report is about this cluster (no -M/Clusters= naming another). */
  ours: boolean;
  tres: string[];
  cluster: string;
  /** Every job the window selected; `mine` those the conditions keep. */
  all: Plain<JobInfo>[];
  mine: Plain<JobInfo>[];
  nodes: Plain<NodeInfo>[];
  /** When nodes were DOWN or drained (sreport's Down). */
  downSpans: DownSpan[];
  time: (t: number) => string;
  out: (text: string, extraStderr?: string) => CliResult;
  reservations: () => Promise<Plain<ReservationInfo>[]>;
  accountTree: () => Promise<AssocEntry[]>;
  properNames: () => Promise<(user: string) => string>;
}

export async function clusterUtilizationReport(x: ReportContext): Promise<CliResult> {
  const resvs = await x.reservations();
  const held = reservationRollup(resvs, x.all, [], x.w, x.now).held;
  // a cluster with no time in the window (not yet registered) has no line, as in slurmdbd
  const rows = x.ours && clusterTresSeconds(x.nodes, "cpu", x.w) > 0
    ? x.tres.map((t) => {
      // nodes DOWN or drained: Down (PLND Down inside MAINT reservations), taken off the reservations' time
      const d = downCharges(x.nodes, x.downSpans, resvs, t, x.w, x.now);
      const reserved = t === "cpu"
        ? { allocated: held.allocated - d.resvAllocatedCut, plannedDown: held.plannedDown - d.resvPlannedDownCut + d.plannedDown, names: held.names }
        : { allocated: 0, plannedDown: d.plannedDown, names: held.names };
      return clusterUsage(
        x.cluster, x.all, clusterTresCount(x.nodes, t), x.w, x.now, (j) => jobTresCount(j, t), t, reserved, clusterTresSeconds(x.nodes, t, x.w), d.down,
      );
    })
    : [];
  const r = clusterUtilizationText(rows, x.w, x.o.style, x.time, x.o.tres !== "", x.c.format);
  return x.out(r.text, r.stderr);
}

export async function userTopReport(x: ReportContext): Promise<CliResult> {
  const { c, w, now } = x;
  const [names, tree, resvs] = await Promise.all([x.properNames(), x.accountTree(), x.reservations()]);
  const usage = clusterUsage(x.cluster, x.all, clusterTresCount(x.nodes, "cpu"), w, now, undefined, "cpu", undefined, clusterTresSeconds(x.nodes, "cpu", w));
  const inAccounts = x.mine.filter((j) => c.accounts.length === 0 || c.accounts.includes(j.account));
  const idle = new Map([...reservationRollup(resvs, x.all, tree, w, now).idleByAssoc].filter(([k]) => {
    const [account = "", user = ""] = k.split("\u0000");
    return (c.accounts.length === 0 || c.accounts.includes(account)) && (c.users.length === 0 || c.users.includes(user));
  }));
  const everyone = userUsage(inAccounts, w, now, undefined, c.group, idle);
  if (x.o.tres === "") {
    const r = userTopText(usage, everyone, c.top, w, x.o.style, names, x.time, undefined, c.format);
    return x.out(r.text, r.stderr);
  }
  // every user (and account) with any use is listed; ranked by the first TRES asked for, ties
  // by user name from the last (oracle: spurtest before root at 0 GPU-seconds), then account
  const keyOf = (r: UserUsage): string => `${r.user}\u0000${r.accounts.join(",")}`;
  const per = x.tres.map((t) => {
    const rows = userUsage(inAccounts, w, now, (j) => jobTresCount(j, t), c.group, t === "cpu" ? idle : undefined);
    const byKey = new Map(rows.map((r) => [keyOf(r), r.used]));
    return { name: t, reported: clusterTresSeconds(x.nodes, t, w), usedBy: (r: UserUsage) => byKey.get(keyOf(r)) ?? 0 };
  });
  const first = per[0]?.usedBy ?? (() => 0);
  const ranked = [...everyone].sort((a, b) => first(b) - first(a) || (a.user < b.user ? 1 : a.user > b.user ? -1 : 0)
    || (a.accounts.join() < b.accounts.join() ? -1 : 1));
  const r = userTopText(usage, ranked, c.top, w, x.o.style, names, x.time, per, c.format);
  return x.out(r.text, r.stderr);
}

export async function assocReport(x: ReportContext): Promise<CliResult> {
  const { c, w, now } = x;
  const [tree, names, resvs] = await Promise.all([x.accountTree(), x.properNames(), x.reservations()]);
  // the CPU time reservations held unused counts as use of the associations they admit (rollup)
  const idle = reservationRollup(resvs, x.all, tree, w, now).idleByAssoc;
  const withIdle = (t: string): Map<string, number> => {
    const u = usageByAssoc(x.mine, t, w, now);
    if (t === "cpu") for (const [k, secs] of idle) if (secs > 0) u.set(k, (u.get(k) ?? 0) + secs);
    return u;
  };
  const input = {
    cluster: x.cluster, rows: accountRows(tree, x.tres.map(withIdle), { accounts: c.accounts, users: c.users }, withIdle("cpu")), tres: x.tres,
    totals: x.tres.map((t) => clusterTresSeconds(x.nodes, t, w)), tresGiven: x.o.tres !== "",
  };
  const r = x.kind === "cluster-account-by-user"
    ? accountByUserText(input, c.format, x.o.style, w, names, x.time, c.tree)
    : userByAccountText(input, c.format, x.o.style, w, names, x.time);
  return x.out(r.text, r.stderr);
}

export async function sizesReport(x: ReportContext): Promise<CliResult> {
  const { c } = x;
  if (x.tres.length > 1) {
    return { stdout: "", stderr: `${x.o.stderr}${c.stderr} Job report only supports a single --tres type.\n Generate a separate report for each TRES type.\n`, exitCode: 1 };
  }
  const tree = c.flat ? [] : await x.accountTree();
  const parents = new Map(tree.filter((a) => a.user === "").map((a) => [a.account, a.parent]));
  const opts = {
    grouping: c.grouping ?? [50, 250, 500, 1000], flat: c.flat, printJobCount: c.printJobCount, accounts: c.accounts,
    withWckey: x.kind === "job-sizes-account-wckey", byWckey: x.kind === "job-sizes-wckey", tres: x.tres[0] ?? "cpu", tresGiven: x.o.tres !== "",
    format: c.format,
  };
  const r = jobSizesText(x.cluster, x.mine, x.w, x.now, opts, x.o.style, (a) => parents.get(a), x.time);
  return x.out(r.text, r.stderr);
}
