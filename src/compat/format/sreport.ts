/**
 * @module format/sreport
 * `sreport cluster utilization` and `sreport user topusage` built from job records instead of
 * slurmdbd's hourly rollups: CPU-seconds each job held inside the report window (AllocCPUS x
 * its overlap with [start, end)), per cluster and per user; the cluster's capacity is its CPU
 * count over the window. Down is the time nodes spent DOWN or drained (the controller's node
 * history, sched/model/node-history.ts), PLND Down that of MAINT reservations; Planned is
 * the CPU time of jobs that were eligible but waiting, capped so that Allocated + Planned never
 * exceed the capacity; Idle is the rest. Layout facts from the oracle (22.05): the dashed banner,
 * "Usage reported in CPU Minutes", columns 8 wide growing a digit past 10^8 units, 9 more for
 * the "per" formats, headers cut to the width, -p/-P as sacct.
 */
import type { Plain } from "../../lib/plain.ts";
import type { JobInfo } from "../../net/gen/spur/v1/types_pb.ts";
import { fixed2 } from "./seff.ts";

type Job = Plain<JobInfo>;

export type TimeFormat = "secs" | "mins" | "hours" | "percent" | "secper" | "minper" | "hourper";

/** -t values as sreport matches them (case-insensitive prefixes). */
export function parseTimeFormat(text: string): TimeFormat | undefined {
  const t = text.toLowerCase();
  const table: [string, number, TimeFormat][] = [
    ["secper", 6, "secper"], ["minper", 6, "minper"], ["hourper", 6, "hourper"],
    ["seconds", 1, "secs"], ["minutes", 1, "mins"], ["hours", 1, "hours"], ["percent", 1, "percent"],
  ];
  for (const [name, min, format] of table) if (t.length >= min && name.startsWith(t)) return format;
  return undefined;
}

const FORMAT_TEXT: Readonly<Record<TimeFormat, string>> = {
  secs: "CPU Seconds", mins: "CPU Minutes", hours: "CPU Hours", percent: "Percentage of Total",
  secper: "CPU Seconds/Percentage of Total", minper: "CPU Minutes/Percentage of Total", hourper: "CPU Hours/Percentage of Total",
};

export const isPer = (f: TimeFormat): boolean => f === "secper" || f === "minper" || f === "hourper";

/** printf("%.0f"): an exact half goes to the even neighbour. */
function fixed0(x: number): string {
  const down = Math.floor(x);
  if (x - down === 0.5) return String(down % 2 === 0 ? down : down + 1);
  return String(Math.round(x));
}

/** One usage value (CPU-seconds) in the report's unit; `total` is what percentages are of. */
export function usageText(secs: number, total: number, format: TimeFormat): string {
  const percent = `${fixed2((secs / (total === 0 ? 1 : total)) * 100)}%`;
  switch (format) {
    case "secs":
      return String(secs);
    case "hours":
      return fixed0(secs / 3600);
    case "percent":
      return percent;
    case "secper":
      return `${secs}(${percent})`;
    case "minper":
      return `${fixed0(secs / 60)}(${percent})`;
    case "hourper":
      return `${fixed0(secs / 3600)}(${percent})`;
    default:
      return fixed0(secs / 60);
  }
}

/** The width of a usage column for its largest value: 8, one more per digit past 10^8. */
export function usageWidth(maxSecs: number, format: TimeFormat): number {
  let width = 8;
  for (let order = 1e8; order < 1e25 && maxSecs >= order; order *= 10) width += 1;
  return isPer(format) ? width + 9 : width;
}

/** The report window: [start, end), epoch seconds. */
export interface Window {
  start: number;
  end: number;
}

/** Seconds of [from, to) inside the window. */
const overlap = (from: number, to: number, w: Window): number => Math.max(0, Math.min(to, w.end) - Math.max(from, w.start));

/** When a job stopped holding its CPUs (now while it still runs). */
function heldUntil(job: Job, now: number): number {
  const state = job.state.toUpperCase();
  if (state === "RUNNING" || state === "SUSPENDED" || state === "COMPLETING") return now;
  return job.endTime > 0 ? job.endTime : now;
}

/** CPU-seconds a job held inside the window. */
export function allocatedSecs(job: Job, w: Window, now: number, count: (job: Job) => number = (j) => j.numCpus): number {
  const n = count(job);
  if (job.startTime <= 0 || n <= 0) return 0;
  return overlap(Math.floor(job.startTime), Math.floor(heldUntil(job, now)), w) * n;
}

/** CPU-seconds a job waited while eligible inside the window (what Planned counts). */
export function plannedSecs(job: Job, w: Window, now: number, count: (job: Job) => number = (j) => Math.max(1, j.numCpus)): number {
  if (job.eligibleTime <= 0) return 0;
  const waitedUntil = job.startTime > 0 ? job.startTime : job.state.toUpperCase() === "PENDING" ? now : job.endTime;
  return overlap(Math.floor(job.eligibleTime), Math.floor(waitedUntil), w) * count(job);
}

export interface ClusterUsage {
  cluster: string;
  /** The TRES counted (cpu unless --tres named others). */
  tres?: string;
  allocated: number;
  down: number;
  plannedDown: number;
  idle: number;
  planned: number;
  reported: number;
  /** What Reported's percentage is of: CPUs x window seconds. */
  capacity: number;
  /** The cluster's count of the TRES (format=TresCount). */
  count?: number;
  /** Over Comm: Planned time that did not fit beside the rest (slurmdbd's over_secs). */
  over?: number;
}

/**
 * Cluster utilization over the window from job records and the cluster's count of the TRES. As
 * slurmdbd's rollup: a reservation's whole time is allocated (PLND Down for MAINT; `reserved`
 * gives it, and the reservations it covers) and its jobs add nothing more; Planned is the
 * eligible wait of CPUs outside reservations.
 */
export function clusterUsage(
  cluster: string, jobs: readonly Job[], cpus: number, w: Window, now: number, count?: (job: Job) => number, tres = "cpu",
  reserved?: { allocated: number; plannedDown: number; names: ReadonlySet<string> },
  capacitySecs?: number,
  downSecs = 0,
): ClusterUsage {
  // Reported: the TRES-seconds the cluster had (from each node's registration: capacitySecs);
  // its percentage is of the whole window's (oracle: 50416 of 57600 shows as 87.53%)
  const capacity = capacitySecs ?? cpus * Math.max(0, w.end - w.start);
  const whole = cpus * Math.max(0, w.end - w.start);
  let allocated = 0;
  let planned = 0;
  const held = reserved ?? { allocated: 0, plannedDown: 0, names: new Set<string>() };
  for (const job of jobs) {
    // a job in a held reservation adds nothing: the reservation's whole time counts instead; one in
    // an IGNORE_JOBS reservation counts as allocated (oracle), and no reservation job adds planned time
    if (!held.names.has(job.reservation)) allocated += allocatedSecs(job, w, now, count);
    // slurmdbd's rollup counts the eligible wait of CPUs only
    if (tres === "cpu" && job.reservation === "") planned += plannedSecs(job, w, now, count);
  }
  // as slurmdbd's rollup: what does not fit is taken from Down first, then from PLND Down; Planned
  // beyond what is left goes to Over Comm
  allocated = Math.min(allocated + held.allocated, capacity);
  const down = Math.min(downSecs, capacity - allocated);
  const plannedDown = Math.min(held.plannedDown, capacity - allocated - down);
  const room = capacity - allocated - down - plannedDown;
  const over = Math.max(0, planned - room);
  planned -= over;
  const idle = room - planned;
  return { cluster, tres, allocated, down, plannedDown, over, idle, planned, reported: capacity, capacity: Math.max(whole, capacity), count: cpus };
}

export interface UserUsage {
  user: string;
  accounts: string[];
  used: number;
}

/** CPU-seconds per user in the window, largest first (ties by name); users without use left out. */
export function userUsage(
  jobs: readonly Job[], w: Window, now: number, count?: (job: Job) => number, group = true, extra?: ReadonlyMap<string, number>,
): UserUsage[] {
  const byUser = new Map<string, UserUsage>();
  const add = (user: string, account: string, used: number): void => {
    // 22.05 lists a user once per account (oracle); Group merges them into one line
    const key = group ? user : `${user}\u0000${account}`;
    const row = byUser.get(key) ?? { user, accounts: [], used: 0 };
    row.used += used;
    if (!row.accounts.includes(account)) row.accounts.push(account);
    byUser.set(key, row);
  };
  for (const job of jobs) {
    const used = allocatedSecs(job, w, now, count);
    if (used > 0) add(job.user, job.account, used);
  }
  // reservation time charged to associations that could use it (account\0user -> seconds)
  for (const [key, used] of extra ?? []) {
    const [account = "", user = ""] = key.split("\u0000");
    if (used > 0 && user !== "") add(user, account, used);
  }
  return [...byUser.values()].sort((a, b) => b.used - a.used || (a.user < b.user ? -1 : a.user > b.user ? 1 : 0));
}

/** How rows print: fixed columns, or '|'-separated with (-p) or without (-P) a trailing '|'. */
export interface Style {
  parsable: "none" | "trailing" | "plain";
  header: boolean;
  format: TimeFormat;
}

export interface Column {
  name: string;
  width: number;
  /** Left-justified (names) or right (everything else). */
  left?: boolean;
}

export function renderRows(columns: readonly Column[], rows: readonly string[][], style: Style): string {
  if (style.parsable !== "none") {
    const end = style.parsable === "trailing" ? "|" : "";
    const lines = style.header ? [columns.map((c) => c.name)] : [];
    return [...lines, ...rows].map((cells) => `${cells.join("|")}${end}\n`).join("");
  }
  // a value too long for its column ends in '+' (print_fields_str); a header is only cut
  const cell = (text: string, c: Column, isValue: boolean): string => {
    const cut = text.length <= c.width ? text : isValue ? `${text.slice(0, c.width - 1)}+` : text.slice(0, c.width);
    return c.left ? cut.padEnd(c.width) : cut.padStart(c.width);
  };
  const line = (cells: readonly string[], isValue: boolean): string =>
    `${columns.map((c, i) => `${cell(cells[i] ?? "", c, isValue)} `).join("")}\n`;
  const head = style.header ? line(columns.map((c) => c.name), false) + line(columns.map((c) => "-".repeat(c.width)), false) : "";
  return head + rows.map((r) => line(r, true)).join("");
}

/**
 * sreport's `format=` words: each word (before an optional `%N`) is matched by `match` (sreport
 * takes a prefix of a field's name, at least that field's minimum length); N is the signed
 * width asked for, 0 when none. Unknown words are reported as sreport reports them and skipped.
 */
export function formatWords<T>(format: readonly string[], match: (word: string) => T | undefined): { picks: { hit: T; width: number }[]; stderr: string } {
  const picks: { hit: T; width: number }[] = [];
  let stderr = "";
  for (const raw of format) {
    const pct = raw.indexOf("%");
    const name = pct < 0 ? raw : raw.slice(0, pct);
    const hit = match(name.toLowerCase());
    if (hit === undefined) stderr += ` Unknown field '${name}'\n`;
    else picks.push({ hit, width: pct < 0 ? 0 : Number.parseInt(raw.slice(pct + 1), 10) || 0 });
  }
  return { picks, stderr };
}

export const DASHES = "-".repeat(80);

/** "Cluster Utilization <start> - <end-1>" and the unit line, between dashes. */
export function banner(title: string, usageLine: string, style: Style): string {
  if (!style.header) return "";
  return `${DASHES}\n${title}\n${usageLine}\n${DASHES}\n`;
}

export const usageLine = (format: TimeFormat): string => `Usage reported in ${FORMAT_TEXT[format]}`;

/** sreport user topusage: the `top` users by CPU time, percentages of the cluster's reported time. */
export function userTopText(
  cluster: ClusterUsage,
  users: readonly UserUsage[],
  top: number,
  w: Window,
  style: Style,
  properName: (user: string) => string,
  timeText: (t: number) => string,
  tres?: readonly TopTres[],
  format: readonly string[] = [],
): { text: string; stderr: string } {
  const f = style.format;
  const shown = users.slice(0, top);
  const title = `Top ${top} Users ${timeText(w.start)} - ${timeText(w.end - 1)} (${w.end - w.start} secs)`;
  // one line per user, or per user and TRES with --tres (which has a TRES Name column and no Energy: oracle 22.05)
  const lines = tres === undefined
    ? shown.map((u) => ({ u, name: "", used: u.used, of: cluster.reported }))
    : shown.flatMap((u) => tres.map((t) => ({ u, name: t.name, used: t.usedBy(u), of: t.reported })));
  type Line = (typeof lines)[number];
  const max = lines.reduce((m, l) => Math.max(m, l.used), 0);
  const table: [string, number, Column, (l: Line) => string][] = [
    ["accounts", 2, { name: "Account", width: 15 }, (l) => l.u.accounts.join(", ")],
    ["cluster", 2, { name: "Cluster", width: 9 }, () => cluster.cluster],
    ["energy", 1, { name: "Energy", width: usageWidth(0, f) }, () => usageText(0, 0, f)],
    ["login", 1, { name: "Login", width: 9 }, (l) => l.u.user],
    ["proper", 2, { name: "Proper Name", width: 15 }, (l) => properName(l.u.user)],
    ["tresname", 5, { name: "TRES Name", width: 14 }, (l) => l.name],
    ["used", 1, { name: "Used", width: usageWidth(tres === undefined ? (shown[0]?.used ?? 0) : max, f) }, (l) => usageText(l.used, l.of, f)],
  ];
  const defaults = tres === undefined ? ["Cluster", "Login", "Proper", "Accounts", "Used", "Energy"] : ["Cluster", "Login", "Proper", "Accounts", "TresName", "Used"];
  const { picks, stderr } = formatWords(format.length > 0 ? format : defaults, (word) => table.find(([key, min]) => word.length >= min && key.startsWith(word)));
  const picked: [Column, (l: Line) => string][] = picks.map(({ hit, width: asked }) => {
    // Used and Energy keep the width their values need (as in the cluster reports)
    const width = hit[0] === "used" || hit[0] === "energy" ? 0 : asked;
    return [width === 0 ? hit[2] : { ...hit[2], width: Math.abs(width), ...(width < 0 ? { left: true } : {}) }, hit[3]];
  });
  const unit = tres === undefined || f === "percent" ? usageLine(f) : usageLine(f).replace("CPU ", "TRES ");
  const cells = lines.map((l) => picked.map(([, value]) => value(l)));
  return { text: banner(title, unit, style) + renderRows(picked.map(([c]) => c), cells, style), stderr };
}

/** One TRES of a `--tres` topusage: its name, what percentages are of, and a line's TRES-seconds. */
export interface TopTres {
  name: string;
  reported: number;
  usedBy: (row: UserUsage) => number;
}

/** A local time rounded to the hour as slurmdbd's reports do: :30 and later go up. */
function roundToHour(t: number): number {
  const d = new Date(t * 1000);
  let minutes = d.getMinutes();
  if (d.getSeconds() >= 30) minutes += 1;
  const up = minutes >= 30;
  d.setMinutes(0, 0, 0);
  if (up) d.setHours(d.getHours() + 1);
  return Math.floor(d.getTime() / 1000);
}

/** Local midnight `daysBack` days before the day of `now`. */
function midnight(now: number, daysBack: number): number {
  const d = new Date(now * 1000);
  d.setHours(0, 0, 0, 0);
  d.setDate(d.getDate() - daysBack);
  return Math.floor(d.getTime() / 1000);
}

/**
 * The window of a report: start= (default yesterday's midnight) and end= (default today's
 * midnight, never past now), both rounded to the hour; at least one hour long.
 */
export function reportWindow(start: number | undefined, end: number | undefined, now: number): Window {
  const from = roundToHour(start ?? midnight(now, 1));
  let to = roundToHour(Math.min(end ?? midnight(now, 0), now));
  if (to <= from) to = from + 3600;
  return { start: from, end: to };
}
