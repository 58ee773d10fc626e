/**
 * @module format/sreport-assoc
 * `sreport cluster AccountUtilizationByUser` and `UserUtilizationByAccount`: TRES-seconds per
 * association inside the report window (a job's TRES count times the part of its run inside the
 * window, as slurmdbd's hourly rollups clip it), account rows holding their whole subtree.
 * Layout facts from the oracle (22.05) are in the functions that print them.
 */
import type { Plain } from "../../lib/plain.ts";
import type { JobInfo } from "../../net/gen/spur/v1/types_pb.ts";
import { DASHES, formatWords, renderRows, usageText, usageWidth, type Column, type Style, type TimeFormat, type Window } from "./sreport.ts";
import { jobTresCount } from "./sreport-tres.ts";

type Job = Plain<JobInfo>;

/** An association as the account tree holds it ("" user: the account's own). */
export interface AssocEntry {
  account: string;
  user: string;
  /** The parent account of an account's own association ("" for root). */
  parent: string;
}

/** Seconds of a job's run inside the window (running jobs until now). */
export function runInWindow(job: Job, w: Window, now: number): number {
  if (job.startTime <= 0) return 0;
  const running = job.state.toUpperCase() === "RUNNING" || job.state.toUpperCase() === "SUSPENDED" || job.endTime <= 0;
  const end = running ? now : job.endTime;
  return Math.max(0, Math.min(Math.floor(end), w.end) - Math.max(Math.floor(job.startTime), w.start));
}

const key = (account: string, user: string): string => `${account}\u0000${user}`;

/** TRES-seconds per (account, user) of the jobs in the window. */
export function usageByAssoc(jobs: readonly Job[], tres: string, w: Window, now: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const job of jobs) {
    const secs = runInWindow(job, w, now) * jobTresCount(job, tres);
    if (secs <= 0) continue;
    const k = key(job.account, job.user);
    out.set(k, (out.get(k) ?? 0) + secs);
  }
  return out;
}

export interface AssocRow {
  account: string;
  user: string;
  depth: number;
  /** TRES-seconds per TRES of the report (the order of --tres). */
  used: number[];
  /** CPU-seconds (what UserUtilizationByAccount sorts by whatever TRES it shows). */
  cpu: number;
}

/**
 * Rows in the account tree's order (an account, its users by name, then its sub-accounts by
 * name), account rows summing their subtree; associations without use in the window are left
 * out. `accounts`/`users` select rows as Accounts=/Users= do.
 */
export function accountRows(
  tree: readonly AssocEntry[], usage: readonly ReadonlyMap<string, number>[], sel: { accounts: string[]; users: string[] },
  members?: ReadonlyMap<string, number>,
): AssocRow[] {
  const children = new Map<string, AssocEntry[]>();
  const users = new Map<string, AssocEntry[]>();
  for (const a of tree) {
    if (a.user === "") children.set(a.parent, [...(children.get(a.parent) ?? []), a]);
    else users.set(a.account, [...(users.get(a.account) ?? []), a]);
  }
  const byName = (x: AssocEntry, y: AssocEntry): number => ((x.user || x.account) < (y.user || y.account) ? -1 : 1);
  const rows: AssocRow[] = [];
  const userSelected = (u: string): boolean => sel.users.length === 0 || sel.users.includes(u);
  const zero = (): number[] => usage.map(() => 0);
  const add = (into: number[], more: readonly number[]): void => {
    for (let i = 0; i < into.length; i++) into[i] = (into[i] ?? 0) + (more[i] ?? 0);
  };
  const any = (v: readonly number[]): boolean => v.some((x) => x > 0);
  // an association is listed when it has any use in the window (of any TRES: `members`), even if
  // the TRES reported is 0 for it, as slurmdbd lists every association with usage rows
  const listed = (k: string, used: readonly number[]): boolean => any(used) || (members?.get(k) ?? 0) > 0;
  const walk = (account: string, depth: number): { used: number[]; shown: boolean } => {
    const at = rows.length;
    const total = zero();
    let shown = false;
    for (const u of [...(users.get(account) ?? [])].sort(byName)) {
      if (!userSelected(u.user)) continue;
      const used = usage.map((m) => m.get(key(account, u.user)) ?? 0);
      add(total, used);
      if (listed(key(account, u.user), used)) {
        rows.push({ account, user: u.user, depth: depth + 1, used, cpu: members?.get(key(account, u.user)) ?? used[0] ?? 0 });
        shown = true;
      }
    }
    for (const sub of [...(children.get(account) ?? [])].sort(byName)) {
      if (depth >= 64) continue;
      const below = walk(sub.account, depth + 1);
      add(total, below.used);
      shown ||= below.shown;
    }
    // Users= asks for user associations only: no account rows then (oracle)
    if (shown && sel.users.length === 0) rows.splice(at, 0, { account, user: "", depth, used: total, cpu: 0 });
    return { used: total, shown };
  };
  walk("root", 0);
  if (sel.accounts.length === 0) return rows;
  return rows.filter((r) => sel.accounts.includes(r.account));
}

/** One field of these reports: its header, default width and text for a row. */
interface Field {
  name: string;
  width: number;
  left?: boolean;
  /** The row and which of the report's TRES this line is for. */
  value: (r: AssocRow, t: number) => string;
}

export interface AssocReportInput {
  cluster: string;
  rows: AssocRow[];
  /** The TRES reported, one line each per row. */
  tres: string[];
  /** What percentages are of, per TRES: the cluster's count of it times the window. */
  totals: number[];
  /** --tres given: a TRES Name column, and TRES in the usage line. */
  tresGiven: boolean;
}

const UNIT: Readonly<Record<TimeFormat, string>> = {
  secs: "Seconds", mins: "Minutes", hours: "Hours", percent: "Percentage of Total",
  secper: "Seconds/Percentage of Total", minper: "Minutes/Percentage of Total", hourper: "Hours/Percentage of Total",
};

/** "Usage reported in CPU Minutes" (TRES Minutes once --tres names the TRES). */
export function assocUsageLine(f: TimeFormat, tresGiven: boolean): string {
  return f === "percent" ? `Usage reported in ${UNIT[f]}` : `Usage reported in ${tresGiven ? "TRES" : "CPU"} ${UNIT[f]}`;
}

function fields(input: AssocReportInput, f: TimeFormat, properName: (u: string) => string, tree: boolean): Record<string, Field> {
  const usedWidth = usageWidth(input.rows.reduce((m, r) => Math.max(m, ...r.used), 0), f);
  return {
    cluster: { name: "Cluster", width: 9, value: () => input.cluster },
    account: {
      name: "Account", width: tree ? 20 : 15, left: tree,
      value: (r) => (tree ? `${" ".repeat(r.user === "" ? r.depth : r.depth)}${r.account}` : r.account),
    },
    login: { name: "Login", width: 9, value: (r) => r.user },
    proper: { name: "Proper Name", width: 15, value: (r) => (r.user === "" ? "" : properName(r.user)) },
    used: { name: "Used", width: usedWidth, value: (r, t) => usageText(r.used[t] ?? 0, input.totals[t] ?? 0, f) },
    energy: { name: "Energy", width: usageWidth(0, f), value: () => usageText(0, 0, f) },
    tresname: { name: "TRES Name", width: 14, value: (_r, t) => input.tres[t] ?? "" },
  };
}

/** Format= words to fields (prefix matches as sreport's), with %width. Unknown ones are reported. */
export function pickFields(format: readonly string[], table: Record<string, Field>): { fields: Field[]; stderr: string } {
  const aliases: [string, string, number][] = [
    ["accounts", "account", 2], ["cluster", "cluster", 2], ["energy", "energy", 1], ["login", "login", 1],
    ["proper", "proper", 2], ["tresname", "tresname", 5], ["used", "used", 1],
  ];
  const { picks, stderr } = formatWords(format, (word) => {
    const hit = aliases.find(([name, , min]) => word.length >= min && name.startsWith(word));
    const field = hit === undefined ? undefined : table[hit[1]];
    return hit === undefined || field === undefined ? undefined : { key: hit[1], field };
  });
  const fields = picks.map(({ hit: { key, field }, width: asked }) => {
    // Used and Energy take the width their largest value needs whatever %N says (oracle: Used%12 stays 8)
    const width = key === "used" || key === "energy" ? 0 : asked;
    return width !== 0 ? { ...field, width: Math.abs(width), left: width < 0 } : field;
  });
  return { fields, stderr };
}

export interface AssocReportText {
  text: string;
  stderr: string;
}

function report(
  title: string, defaults: string[], input: AssocReportInput, format: readonly string[], style: Style, w: Window,
  properName: (u: string) => string, timeText: (t: number) => string, tree: boolean,
): AssocReportText {
  const f = style.format;
  const table = fields(input, f, properName, tree);
  const picked = pickFields(format.length > 0 ? format : defaults, table);
  const columns: Column[] = picked.fields.map((x) => ({ name: x.name, width: x.width, ...(x.left === true ? { left: true } : {}) }));
  const cells = input.rows.flatMap((r) => input.tres.map((_, t) => picked.fields.map((x) => x.value(r, t))));
  const head = style.header
    ? `${DASHES}\n${title} ${timeText(w.start)} - ${timeText(w.end - 1)} (${w.end - w.start} secs)\n${assocUsageLine(f, input.tresGiven)}\n${DASHES}\n`
    : "";
  return { text: head + renderRows(columns, cells, style), stderr: picked.stderr };
}

/** sreport cluster AccountUtilizationByUser. */
export function accountByUserText(
  input: AssocReportInput, format: readonly string[], style: Style, w: Window, properName: (u: string) => string,
  timeText: (t: number) => string, tree: boolean,
): AssocReportText {
  const defaults = input.tresGiven ? ["Cluster", "Ac", "Login", "Proper", "TresName", "Used"] : ["Cluster", "Ac", "Login", "Proper", "Used", "Energy"];
  return report("Cluster/Account/User Utilization", defaults, input, format, style, w, properName, timeText, tree);
}

/** sreport cluster UserUtilizationByAccount: user rows only, largest use first. */
export function userByAccountText(
  input: AssocReportInput, format: readonly string[], style: Style, w: Window, properName: (u: string) => string,
  timeText: (t: number) => string,
): AssocReportText {
  const defaults = input.tresGiven ? ["Cluster", "Login", "Proper", "Ac", "TresName", "Used"] : ["Cluster", "Login", "Proper", "Ac", "Used", "Energy"];
  // largest CPU use first whatever TRES is shown (oracle: --tres=gres/gpu keeps the CPU order)
  const rows = input.rows.filter((r) => r.user !== "").sort((a, b) => b.cpu - a.cpu || (a.user < b.user ? -1 : 1));
  return report("Cluster/User/Account Utilization", defaults, { ...input, rows }, format, style, w, properName, timeText, false);
}
