/**
 * @module format/sreport-sizes
 * `sreport job SizesByAccount` (and SizesByAccountAndWckey): the TRES-seconds of the jobs that
 * ran in the window, by account and by job size. Facts from the oracle (22.05): a job counts
 * with its whole elapsed time (not clipped to the window) times its count of the TRES asked
 * for (--tres, one only; cpu by default), but it is put in a size column by its CPU count
 * whatever the TRES; columns are "0-49 CPUs" ... ">= 1000 CPUs" (grouping=, "TRES" instead of
 * "CPUs" when --tres names another TRES, one column per CPU count present with
 * grouping=individual); a cell is in -t units with the account's total as 100%, the last column
 * is the account's share of the listed total; PrintJobCount counts jobs instead. Without
 * FlatView a row is one of the accounts asked for (root by default) holding its whole subtree;
 * with FlatView a row is each job's own account (SizesByAccountAndWckey: "account:wckey", the
 * wckey empty when the job has none). Rows by account name.
 */
import type { Plain } from "../../lib/plain.ts";
import type { JobInfo } from "../../net/gen/spur/v1/types_pb.ts";
import { DASHES, formatWords, isPer, renderRows, usageText, type Column, type Style, type TimeFormat, type Window } from "./sreport.ts";
import { fixed2 } from "./seff.ts";
import { jobTresCount } from "./sreport-tres.ts";

type Job = Plain<JobInfo>;

export interface SizesOptions {
  /** Upper bounds of the size columns (default 50,250,500,1000), or one column per CPU count. */
  grouping: number[] | "individual";
  flat: boolean;
  printJobCount: boolean;
  /** Accounts asked for (Accounts=); empty: root (or every account with FlatView). */
  accounts: string[];
  /** SizesByAccountAndWckey: the row is "account:wckey" when the job has a wckey. */
  withWckey: boolean;
  /** SizesByWckey: a row per wckey ("Job Sizes by Wckey", a Wckey column). */
  byWckey: boolean;
  /** The TRES whose seconds are summed, and whether --tres named it. */
  tres: string;
  tresGiven: boolean;
  /** Format= fields before the size columns (default Cluster and Account, or Wckey). */
  format?: string[];
}

interface SizeField {
  name: string;
  width: number;
  left?: boolean;
  /** The row's text: its account (or wckey) name for Account and Wckey; sreport prints the others empty or 0. */
  value: (row: string) => string;
}

/** Format= words as sreport's job reports match them (in its order), %N widths (negative: left). */
function pickSizeFields(format: readonly string[], cluster: string): { fields: SizeField[]; stderr: string } {
  const table: [string, number, SizeField][] = [
    ["account", 1, { name: "Account", width: 9, value: (row) => row }],
    ["acct", 4, { name: "Account", width: 9, value: (row) => row }],
    ["cluster", 2, { name: "Cluster", width: 9, value: () => cluster }],
    ["duration", 1, { name: "Duration", width: 12, value: () => "00:00:00" }],
    ["jobcount", 2, { name: "Job Count", width: 9, value: () => "0" }],
    ["nodecount", 2, { name: "Node Count", width: 9, value: () => "0" }],
    ["trescount", 5, { name: "TRES Count", width: 10, value: () => "0" }],
    ["cpucount", 2, { name: "TRES Count", width: 10, value: () => "0" }],
    ["count", 2, { name: "TRES Count", width: 10, value: () => "0" }],
    ["user", 1, { name: "User", width: 9, value: () => "" }],
    ["wckey", 1, { name: "Wckey", width: 9, value: (row) => row }],
  ];
  const { picks, stderr } = formatWords(format, (word) => table.find(([key, min]) => word.length >= min && key.startsWith(word)));
  const fields: SizeField[] = picks.map(({ hit, width }) => (width === 0 ? hit[2] : { ...hit[2], width: Math.abs(width), left: width < 0 }));
  return { fields, stderr };
}

const TIME_WORDS: Readonly<Record<TimeFormat, string>> = {
  secs: "Seconds", mins: "Minutes", hours: "Hours", percent: "Percentage of Total",
  secper: "Seconds/Percentage of Total", minper: "Minutes/Percentage of Total", hourper: "Hours/Percentage of Total",
};

interface Bucket {
  min: number;
  max: number;
  name: string;
}

function buckets(opts: SizesOptions, cpuCounts: readonly number[]): Bucket[] {
  const unit = !opts.tresGiven || opts.tres === "cpu" ? "CPUs" : "TRES";
  if (opts.grouping === "individual") {
    return [...new Set(cpuCounts)].sort((a, b) => a - b).map((n) => ({ min: n, max: n, name: `${n} ${unit}` }));
  }
  const out: Bucket[] = [];
  let last = 0;
  for (const size of opts.grouping) {
    out.push({ min: last, max: size - 1, name: `${last}-${size - 1} ${unit}` });
    last = size;
  }
  if (last > 0) out.push({ min: last, max: Number.POSITIVE_INFINITY, name: `>= ${last} ${unit}` });
  return out;
}

/** Seconds a job ran (now for a running one); 0 for one that never started. */
export function elapsedSecs(job: Job, now: number): number {
  if (job.startTime <= 0) return 0;
  const end = job.endTime > 0 && job.state.toUpperCase() !== "RUNNING" ? job.endTime : now;
  return Math.max(0, Math.floor(end) - Math.floor(job.startTime));
}

interface Row {
  name: string;
  secs: number[];
  counts: number[];
  total: number;
  count: number;
}

/**
 * The row a job belongs to: its own account (FlatView), else the first account asked for that
 * is its account or above it (`parentOf` walks the account tree).
 */
function rowName(job: Job, opts: SizesOptions, parentOf: (account: string) => string | undefined): string | undefined {
  if (opts.byWckey) return job.wckey;
  // 22.05 keeps an empty wckey: a job without one is "account:" (oracle, SizesByAccountAndWckey FlatView)
  const own = opts.withWckey ? `${job.account}:${job.wckey}` : job.account;
  if (opts.flat) return opts.accounts.length === 0 || opts.accounts.includes(job.account) ? own : undefined;
  const wanted = [...(opts.accounts.length > 0 ? opts.accounts : ["root"])].sort();
  const chain = new Set<string>();
  for (let a: string | undefined = job.account, depth = 0; a !== undefined && a !== "" && depth < 64; a = parentOf(a), depth++) chain.add(a);
  const hit = wanted.find((w) => chain.has(w));
  if (hit === undefined) return undefined;
  // with wckeys, only jobs that have one are grouped under an account (Slurm pairs accounts with wckeys)
  if (opts.withWckey) return job.wckey === "" ? undefined : `${hit}:${job.wckey}`;
  return hit;
}

/** The report's text; `jobs` are those the window selected, `now` ends running ones. */
export function jobSizesText(
  cluster: string, jobs: readonly Job[], w: Window, now: number, opts: SizesOptions, style: Style,
  parentOf: (account: string) => string | undefined, timeText: (t: number) => string,
): { text: string; stderr: string } {
  // with FlatView the job query itself is limited to the accounts asked for (so are the individual sizes)
  const ran = jobs.filter((j) => elapsedSecs(j, now) > 0 && (!opts.flat || opts.accounts.length === 0 || opts.accounts.includes(j.account)));
  const groups = buckets(opts, ran.map((j) => jobTresCount(j, "cpu")));
  // grouping=individual with no job that ran: nothing to make columns of (oracle: no header either)
  if (groups.length === 0) return { text: "", stderr: " We need a grouping list to set up the print.\n" };
  const rows = new Map<string, Row>();
  let clusterTotal = 0;
  let clusterCount = 0;
  for (const job of ran) {
    const name = rowName(job, opts, parentOf);
    if (name === undefined) continue;
    const cpus = jobTresCount(job, "cpu");
    const k = groups.findIndex((g) => cpus >= g.min && cpus <= g.max);
    if (k < 0) continue;
    const row = rows.get(name) ?? { name, secs: groups.map(() => 0), counts: groups.map(() => 0), total: 0, count: 0 };
    const secs = jobTresCount(job, opts.tres) * elapsedSecs(job, now);
    row.secs[k] = (row.secs[k] ?? 0) + secs;
    row.counts[k] = (row.counts[k] ?? 0) + 1;
    row.total += secs;
    row.count += 1;
    clusterTotal += secs;
    clusterCount += 1;
    rows.set(name, row);
  }
  const f = style.format;
  const width = isPer(f) ? 20 : 13;
  const defaults = opts.byWckey ? ["Cl", "wc"] : opts.withWckey ? ["Cl", "a%-20"] : ["Cl", "a"];
  const picked = pickSizeFields(opts.format !== undefined && opts.format.length > 0 ? opts.format : defaults, cluster);
  const columns: Column[] = [
    ...picked.fields.map((x) => ({ name: x.name, width: x.width, ...(x.left === true ? { left: true } : {}) })),
    ...groups.map((g) => ({ name: g.name, width })),
    { name: "% of cluster", width: 12 },
  ];
  const percent = (part: number, whole: number): string => `${fixed2((part / (whole === 0 ? 1 : whole)) * 100)}%`;
  const cells = [...rows.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((r) => [
    ...picked.fields.map((x) => x.value(r.name)),
    ...groups.map((_, k) => (opts.printJobCount ? String(r.counts[k] ?? 0) : usageText(r.secs[k] ?? 0, r.total, f))),
    opts.printJobCount ? percent(r.count, clusterCount) : percent(r.total, clusterTotal),
  ]);
  const lines = [
    `Job Sizes ${opts.byWckey ? "by Wckey " : ""}${timeText(w.start)} - ${timeText(w.end - 1)} (${w.end - w.start} secs)`,
    ...(opts.tresGiven ? [`TRES type is ${opts.tres}`] : []),
    opts.printJobCount ? "Units are in number of jobs ran" : `Time reported in ${TIME_WORDS[f]}`,
  ];
  const head = style.header ? `${DASHES}\n${lines.join("\n")}\n${DASHES}\n` : "";
  return { text: head + renderRows(columns, cells, style), stderr: picked.stderr };
}
