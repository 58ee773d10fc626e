/**
 * @module tests/differential/compare
 * Field-by-field comparison of one case's observations on the two sides, after the
 * conformance suite's masks (tests/conformance/masks.ts: paths, dates, job ids, pids, ...):
 * the command's exit code, stdout and stderr; every Key=Value of `scontrol show job -o`;
 * every column of `squeue -o %all`; every column of each sacct line. The side's own job id
 * is named <J> on both sides, other ids <J1>, <J2> in order of appearance.
 */
import { applyMasks, type MapState, type SideContext } from "../conformance/mask-engine.ts";
import { MASKS } from "../conformance/masks.ts";
import type { Capture } from "../conformance/normalise.ts";

export interface Observation {
  /** The command under test. */
  sub: Capture;
  /** This side's id of the case's job, if one was made. */
  jobId?: string;
  /** `scontrol show job -o $J`, `squeue -j $J -o %all`, sacct lines: output with stderr appended. */
  job?: string;
  squeue?: string;
  sacct?: string;
}

export interface FieldDiff {
  /** "exit", "stdout", "stderr", "job", "job.<Key>", "squeue.<COLUMN>", "sacct.<Field>" (with "#n" for the n-th line). */
  field: string;
  slurm: string;
  spur: string;
}

/** Mask one text of a side: its own job id is <J>. */
export function masked(text: string, ctx: SideContext, jobId: string | undefined): string {
  const st: MapState = { jobIds: new Map(), named: new Map(jobId ? [[jobId, "<J>"]] : []) };
  return applyMasks(text, MASKS, ctx, st).text;
}

/**
 * The side's own job id as a whole "|"-separated (or \x1e/\x1f-separated) cell of a command's output ("17", "17.batch"):
 * <J>. The masks name it only where it leads a row, and `sacct -n -P -o JobName,JobID` has it
 * further along (seed 12314).
 */
export function idCells(text: string, jobId: string | undefined): string {
  if (jobId === undefined) return text;
  // "|" for -P/-o lists; the ASCII record and unit separators for Open OnDemand's squeue format
  return text.replace(new RegExp(`(?<=^|[|\\x1e\\x1f])${jobId}(?=$|[|_.+\\x1e\\x1f])`, "gm"), "<J>");
}

/** Key=Value pairs of a `scontrol -o` line (a value runs to the next " Key="). */
export function keyValues(line: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /(?:^|\s)([A-Za-z][\w/:]*)=/g;
  const marks = [...line.matchAll(re)].map((m) => ({ key: m[1] as string, at: (m.index ?? 0) + m[0].length, start: m.index ?? 0 }));
  marks.forEach((m, i) => {
    const end = i + 1 < marks.length ? (marks[i + 1] as { start: number }).start : line.length;
    const key = out.has(m.key) ? `${m.key}#2` : m.key;
    out.set(key, line.slice(m.at, end).trimEnd());
  });
  return out;
}

/** Rows of a "|"-separated table with a header line, keyed by column name (a repeated name gets "#2"). */
export function pipeTable(text: string): Map<string, string>[] {
  const lines = text.split("\n").filter((l) => l !== "");
  const header = (lines[0] ?? "").split("|");
  const names = header.map((h, i) => (header.indexOf(h) < i ? `${h}#${header.slice(0, i).filter((x) => x === h).length + 1}` : h));
  return lines.slice(1).map((l) => {
    const cells = l.split("|");
    return new Map(names.map((n, i) => [n, cells[i] ?? "(none)"]));
  });
}

/** A column that holds job or step ids (JobID, JobIDRaw, JOBID, STEPID, ARRAY_JOB_ID, HetJobID). */
const idColumn = (name: string): boolean => {
  const n = name.toUpperCase().replaceAll("_", "");
  return n.includes("JOBID") || n.includes("STEPID");
};

/**
 * Cells holding the side's job id ("17", "17_[0-3]", "17.batch") name it <J>: the table masks read
 * only aligned columns. A bare number in any other column is a value, not an id: a time limit of
 * 240 minutes on the side whose job is 240 stays 240.
 */
export function cellIds(rows: Map<string, string>[], jobId: string | undefined): Map<string, string>[] {
  if (jobId === undefined) return rows;
  const re = new RegExp(`^${jobId}(?=$|[_.+])`);
  return rows.map((r) => new Map([...r].map(([k, v]) => [k, !idColumn(k) && /^\d+$/.test(v) ? v : v.replace(re, "<J>")])));
}

/** The job's id inside its file names (--input=in-%j.txt): <J>, as the masks do for slurm-%j.out. */
function idsInPaths(m: Map<string, string>, jobId: string | undefined): Map<string, string> {
  if (jobId === undefined) return m;
  const re = new RegExp(`(?<!\\d)${jobId}(?!\\d)`, "g");
  for (const k of ["StdIn", "StdOut", "StdErr", "WorkDir"]) {
    const v = m.get(k);
    if (v !== undefined) m.set(k, v.replace(re, "<J>"));
  }
  return m;
}

function diffMaps(prefix: string, a: Map<string, string>, b: Map<string, string>, out: FieldDiff[]): void {
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(k) ?? "(absent)";
    const y = b.get(k) ?? "(absent)";
    if (x !== y) out.push({ field: `${prefix}.${k}`, slurm: x, spur: y });
  }
}

/** One record's lines that are not the record (error text, extra lines). */
function diffRows(prefix: string, a: Map<string, string>[], b: Map<string, string>[], out: FieldDiff[]): void {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    const p = i === 0 ? prefix : `${prefix}#${i + 1}`;
    if (x === undefined || y === undefined) out.push({ field: `${p}`, slurm: x ? "(line)" : "(no line)", spur: y ? "(line)" : "(no line)" });
    else diffMaps(p, x, y, out);
  }
}

export interface Sides {
  slurm: SideContext;
  spur: SideContext;
}

/**
 * Fields not compared for a job submitted without --hold or --test-only: when it starts, on
 * which node, and with what priority depend on the shared oracle's load at that moment
 * (other users' jobs), so they race. Its sacct lines are not compared at all (run-case.ts).
 * TimeLimit too: a job without one that 22.05's backfill planned while it waited shows
 * 365-00:00:00 (a year) instead of UNLIMITED (seeds 13440, 13495; the same jobs run at once show UNLIMITED).
 */
export const RACY_WHEN_RUNNABLE = new RegExp(
  "^(squeue(#\\d+)?|job#\\d+"
    + "|job(#\\d+)?\\.(JobState|Reason|RunTime|TimeLimit|StartTime|EndTime|NodeList|BatchHost|LastSchedEval|EligibleTime|AccrueTime|Priority|SchedNodeList|Scheduler|ExitCode|TRES|NumNodes|NumCPUs|ArrayTaskId|JobId)"
    + "|squeue(#\\d+)?\\.(ST|STATE|REASON|NODELIST|NODELIST\\(REASON\\)|EXEC_HOST|START_TIME|END_TIME|TIME|TIME_LEFT|PRIORITY|PRIORITY#2|SCHEDNODES|CPUS|NODES|JOBID|JOBID#2|ARRAY_TASK_ID))$",
);

/** The two sides' values are the same text but where one has `token` the other has a match of `other`. */
function sameBut(d: FieldDiff, token: string, other: RegExp): boolean {
  const pattern = (t: string) => new RegExp(`^${t.split(token).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(other.source)}$`);
  return (d.slurm.includes(token) && pattern(d.slurm).test(d.spur)) || (d.spur.includes(token) && pattern(d.spur).test(d.slurm));
}

/**
 * Fields never compared, each with its reason (as the scenario suite's masks): they differ on
 * every job between 22.05 and 26.x (the tables Spur follows) or name database internals.
 */
export const NOT_COMPARED: readonly { field: RegExp; reason: string; when?: (d: FieldDiff) => boolean }[] = [
  {
    field: /^sacct\.Start$/,
    when: (d) => d.slurm === "None" && d.spur === "<DATE>",
    reason: "timing on the oracle: a job cancelled while pending has Start=None when slurmdbd had its record before the cancel (the tester waits for it), "
      + "Start=End when the record arrives after (golden 110, which Spur follows)",
  },
  {
    field: /^sacct\.Reason$/,
    when: (d) => d.slurm === "None" && /^JobHeld(User|Admin)$/.test(d.spur),
    reason: "timing on the oracle: the final sacct record of a held job cancelled pending says Reason=None when the cancel reaches slurmdbd "
      + "before its held state, else JobHeldUser/JobHeldAdmin as Spur (seed 128 flapped: None in one soak, identical on two replays)",
  },
  {
    field: /^sacct\.NNodes$/,
    when: (d) => d.slurm === "0" && /^[1-9][0-9]*$/.test(d.spur),
    reason: "timing on the oracle: the same race for the node count of a job cancelled pending: 0 when the cancel reaches slurmdbd first, "
      + "else the requested count as Spur (seeds 69 and 72 were identical in one soak and showed 0 in the next, with no change on Spur's side)",
  },
  {
    field: /^job(#\d+)?\.(StdOut|StdErr|StdIn)$/,
    when: (d) => sameBut(d, "4294967294", /\d+/),
    reason: "timing: a runnable array's record read before its tasks are split names task 4294967294 (%a of the pending whole) in its paths, "
      + "after it the task that kept the array's id (22.05 and Spur alike when held; seed 9182)",
  },
  {
    field: /^job(#\d+)?\.AccrueTime$/,
    when: (d) => d.slurm === "<DATE>" && d.spur === "Unknown",
    reason: "timing on the oracle: a held job with a future --begin gets AccrueTime = its EligibleTime in some submissions and stays Unknown in others "
      + "(sbatch -H -bnow+60 eight times in a row on 2026-12-06: 3 Unknown, 5 dates; seed 13 was identical in earlier CI runs); Spur keeps Unknown for a held job",
  },
  { field: /^squeue(#\d+)?\.(SLUID)?$/, reason: "22.05 vs 26.x: squeue -o %all has a column with an empty header in 22.05 where 26.x prints SLUID" },
  {
    field: /^sacct(#\d+)?\.(Reserved|ResvCPU|ResvCPURAW|Planned|PlannedCPU|PlannedCPURAW)$/,
    reason: "22.05 vs 26.x: Reserved/ResvCPU/ResvCPURAW are Planned/PlannedCPU/PlannedCPURAW in 26.x; Spur takes the old names and prints the new headers",
  },
  { field: /^sacct(#\d+)?\.DBIndex$/, reason: "slurmdbd's row number in its MariaDB job table: Spur's accounting keys a job's row by its id, so the numbers differ" },
  {
    field: /^sacct(#\d+)?\.Flags$/,
    reason: "22.05's slurmdbd flags (StartRecieved, SchedMain/SchedBackfill) record how the record reached the database and which scheduler started the job: "
      + "the same job shows StartRecieved, then SchedMain,StartRecieved seconds later on the oracle (2026-12-07); Spur prints the settled form (masked in the scenario suite too)",
  },
];

/**
 * The oracle's sacct record is 22.05's stub for a job that ended before slurmdbd had its start
 * record ("allocation", no partition, QOS Unknown): the shared slurmdbd lagged past the tester's
 * wait (seeds 12033, 12737), so the record says nothing about the job and is not compared.
 */
export function isSlurmdbdStub(rows: Map<string, string>[]): boolean {
  const first = rows[0];
  return first !== undefined && first.get("JobName") === "allocation" && first.get("Partition") === "" && first.get("QOS") === "Unknown";
}

/** Every field that differs between the two observations (fields matching `skip` are not compared). */
export function compareObservations(a: Observation, b: Observation, ctx: Sides, skip?: RegExp): FieldDiff[] {
  const out: FieldDiff[] = [];
  const ma = (t: string) => masked(t, ctx.slurm, a.jobId);
  const mb = (t: string) => masked(t, ctx.spur, b.jobId);
  if (a.sub.code !== b.sub.code) out.push({ field: "exit", slurm: String(a.sub.code), spur: String(b.sub.code) });
  for (const s of ["stdout", "stderr"] as const) {
    const x = idCells(ma(a.sub[s]), a.jobId);
    const y = idCells(mb(b.sub[s]), b.jobId);
    if (x !== y) out.push({ field: s, slurm: x, spur: y });
  }
  if ((a.jobId === undefined) !== (b.jobId === undefined)) {
    out.push({ field: "job", slurm: a.jobId ? "a job" : "no job", spur: b.jobId ? "a job" : "no job" });
    return out;
  }
  if (a.job !== undefined && b.job !== undefined) {
    const la = ma(a.job).split("\n").filter((l) => l !== "").map(keyValues).map((m) => idsInPaths(m, a.jobId));
    const lb = mb(b.job).split("\n").filter((l) => l !== "").map(keyValues).map((m) => idsInPaths(m, b.jobId));
    diffRows("job", la, lb, out);
  }
  const ta = (t: string) => cellIds(pipeTable(ma(t)), a.jobId);
  const tb = (t: string) => cellIds(pipeTable(mb(t)), b.jobId);
  if (a.squeue !== undefined && b.squeue !== undefined) diffRows("squeue", ta(a.squeue), tb(b.squeue), out);
  if (a.sacct !== undefined && b.sacct !== undefined && !isSlurmdbdStub(ta(a.sacct))) diffRows("sacct", ta(a.sacct), tb(b.sacct), out);
  const compared = out.filter((d) => !NOT_COMPARED.some((n) => n.field.test(d.field) && (n.when === undefined || n.when(d))));
  return skip === undefined ? compared : compared.filter((d) => !skip.test(d.field));
}
