/**
 * @module format/sreport-resv
 * `sreport reservation utilization`: each reservation that overlaps the report window, its
 * whole time (not clipped to the window) times its CPUs as the total, the CPU-seconds its jobs
 * ran inside it (up to now for a running one) as Allocated, the rest as Idle. Layout from the
 * oracle (22.05): Cluster, Name (9, a longer name ends in '+'), Start and End (19), TRES Name,
 * Allocated and Idle (20 wide, 29 for the per formats); "Usage reported in TRES Seconds".
 * Reservations have only a cpu TRES here: --tres without cpu lists none. A reservation deleted
 * after it started is reported up to its deletion, as slurmdbd keeps it (the controller keeps
 * them, sched/resv/apply-resv.ts).
 */
import type { Plain } from "../../lib/plain.ts";
import type { JobInfo } from "../../net/gen/spur/v1/types_pb.ts";
import type { ReservationInfo } from "../../net/gen/spur/v1/controller_pb.ts";
import { DASHES, formatWords, isPer, renderRows, usageText, type Column, type Style, type Window } from "./sreport.ts";
import type { AssocEntry } from "./sreport-assoc.ts";

type Job = Plain<JobInfo>;
type Resv = Plain<ReservationInfo>;

const FORMAT_WORDS: Readonly<Record<Style["format"], string>> = {
  secs: "TRES Seconds", mins: "TRES Minutes", hours: "TRES Hours", percent: "Percentage of Total",
  secper: "TRES Seconds/Percentage of Total", minper: "TRES Minutes/Percentage of Total", hourper: "TRES Hours/Percentage of Total",
};

export interface ResvUsage {
  name: string;
  start: number;
  end: number;
  total: number;
  allocated: number;
}

/** CPU-seconds each job of the reservation ran inside its window (until now while running). */
export function resvUsage(r: Resv, jobs: readonly Job[], now: number): ResvUsage {
  const start = Math.floor(r.startTime);
  const end = Math.floor(r.endTime);
  let allocated = 0;
  for (const j of jobs) {
    if (j.reservation !== r.name || j.startTime <= 0) continue;
    const stop = j.endTime > 0 && j.state.toUpperCase() !== "RUNNING" ? j.endTime : now;
    const from = Math.max(start, Math.floor(j.startTime));
    const to = Math.min(end, Math.floor(stop), now);
    if (to > from) allocated += (to - from) * Math.max(1, j.numCpus);
  }
  const total = Math.max(0, end - start) * r.coreCount;
  return { name: r.name, start, end, total, allocated: Math.min(allocated, total) };
}

/** [[-]D-]HH:MM:SS of whole seconds (sreport's TotalTime and TRES Time). */
function hms(secs: number): string {
  const d = Math.floor(secs / 86400);
  const pad = (x: number): string => String(x).padStart(2, "0");
  const text = `${pad(Math.floor((secs % 86400) / 3600))}:${pad(Math.floor((secs % 3600) / 60))}:${pad(secs % 60)}`;
  return d > 0 ? `${d}-${text}` : text;
}

interface ResvField {
  /** Format= name and the fewest letters that select it (in sreport's order of matching). */
  key: string;
  min: number;
  name: string;
  width: number;
  value: (u: ResvUsage, r: Resv) => string;
}

/** The report's fields; `assocIds` names the associations a reservation admits (Associations). */
function resvFields(cluster: string, f: Style["format"], timeText: (t: number) => string, assocIds: (r: Resv) => string): ResvField[] {
  const wide = isPer(f) ? 29 : 20;
  return [
    { key: "allocated", min: 2, name: "Allocated", width: wide, value: (u) => usageText(u.allocated, u.total, f) },
    { key: "associations", min: 2, name: "Associations", width: 15, value: (_u, r) => assocIds(r) },
    { key: "cluster", min: 2, name: "Cluster", width: 9, value: () => cluster },
    { key: "end", min: 2, name: "End", width: 19, value: (u) => timeText(u.end) },
    { key: "flags", min: 2, name: "Flags", width: 20, value: (_u, r) => r.flags.join(",") },
    { key: "idle", min: 1, name: "Idle", width: wide, value: (u) => usageText(u.total - u.allocated, u.total, f) },
    { key: "name", min: 2, name: "Name", width: 9, value: (u) => u.name },
    { key: "nodes", min: 2, name: "Nodes", width: 15, value: (_u, r) => r.nodes },
    { key: "reservationid", min: 2, name: "Id", width: 8, value: () => "0" },
    { key: "start", min: 2, name: "Start", width: 19, value: (u) => timeText(u.start) },
    { key: "totaltime", min: 2, name: "TotalTime", width: 9, value: (u) => hms(u.end - u.start) },
    { key: "trescount", min: 5, name: "TRES count", width: 10, value: (_u, r) => String(r.coreCount) },
    { key: "cpucount", min: 2, name: "TRES count", width: 10, value: (_u, r) => String(r.coreCount) },
    { key: "count", min: 2, name: "TRES count", width: 10, value: (_u, r) => String(r.coreCount) },
    { key: "tresname", min: 5, name: "TRES Name", width: 14, value: () => "cpu" },
    { key: "trestime", min: 2, name: "TRES Time", width: 9, value: (u) => hms(u.total) },
    { key: "cputime", min: 5, name: "TRES Time", width: 9, value: (u) => hms(u.total) },
  ];
}

/** Format= words to fields as sreport matches them (first field whose name the word begins, %N widths). */
function pickResvFields(format: readonly string[], table: readonly ResvField[]): { fields: ResvField[]; stderr: string } {
  const { picks, stderr } = formatWords(format, (word) => table.find((x) => x.key.startsWith(word) && word.length >= x.min));
  const fields = picks.map(({ hit, width }) => (width !== 0 ? { ...hit, width } : hit));
  return { fields, stderr };
}

/** The report; `names` selects reservations (Names=), `tres` the TRES asked for, `format` its fields. */
export function resvUtilizationText(
  cluster: string, resvs: readonly Resv[], jobs: readonly Job[], w: Window, now: number,
  opts: { names: string[]; tres: string[]; format?: string[]; assocIds?: (r: Resv) => string }, style: Style, timeText: (t: number) => string,
): { text: string; stderr: string } {
  const f = style.format;
  const table = resvFields(cluster, f, timeText, opts.assocIds ?? (() => ""));
  const picked = pickResvFields((opts.format ?? []).length > 0 ? opts.format ?? [] : ["cl", "name", "start", "end", "tresname", "al", "i"], table);
  const columns: Column[] = picked.fields.map((x) => ({ name: x.name, width: Math.abs(x.width), ...(x.width < 0 ? { left: true } : {}) }));
  const shown = resvs
    .filter((r) => r.startTime < w.end && r.endTime > w.start && (opts.names.length === 0 || opts.names.includes(r.name)))
    .map((r) => ({ r, u: resvUsage(r, jobs, now) }))
    .filter(({ u }) => u.end > u.start)
    .sort((a, b) => a.u.start - b.u.start || (a.u.name < b.u.name ? -1 : 1));
  const cells = opts.tres.includes("cpu") ? shown.map(({ r, u }) => picked.fields.map((x) => x.value(u, r))) : [];
  const head = style.header
    ? `${DASHES}\nReservation Utilization ${timeText(w.start)} - ${timeText(w.end - 1)}\nUsage reported in ${FORMAT_WORDS[f]}\n${DASHES}\n`
    : "";
  return { text: head + renderRows(columns, cells, style), stderr: picked.stderr };
}

/** A reservation's CPU-seconds that its jobs used inside [from, to), as the rollup counts them: the job's run times the reservation's CPUs. */
function usedInside(r: Resv, jobs: readonly Job[], from: number, to: number, now: number): number {
  let used = 0;
  for (const j of jobs) {
    if (j.reservation !== r.name || j.startTime <= 0) continue;
    const stop = j.endTime > 0 && j.state.toUpperCase() !== "RUNNING" ? j.endTime : now;
    const seconds = Math.min(to, Math.floor(stop)) - Math.max(from, Math.floor(j.startTime));
    if (seconds > 0) used += seconds * r.coreCount;
  }
  return used;
}

/** The user associations ("account\0user") a reservation admits. */
function admitted(r: Resv, tree: readonly AssocEntry[]): string[] {
  return tree
    .filter((a) => a.user !== "" && (r.users.length === 0 || r.users.includes(a.user)) && (r.accounts.length === 0 || r.accounts.includes(a.account)))
    .filter(() => r.users.length > 0 || r.accounts.length > 0)
    .map((a) => `${a.account}\u0000${a.user}`);
}

/**
 * What slurmdbd's hourly rollup makes of reservations in the window: each hour, the CPU time a
 * reservation held and its jobs did not use is shared evenly (whole seconds) among the
 * associations it admits and counts as their use; and a reservation's whole time is allocated
 * on the cluster (planned down for MAINT), except with IGNORE_JOBS.
 */
export function reservationRollup(resvs: readonly Resv[], jobs: readonly Job[], tree: readonly AssocEntry[], w: Window, now: number): {
  idleByAssoc: Map<string, number>;
  held: { allocated: number; plannedDown: number; names: Set<string> };
} {
  const idleByAssoc = new Map<string, number>();
  const held = { allocated: 0, plannedDown: 0, names: new Set<string>() };
  for (const r of resvs) {
    const start = Math.max(w.start, Math.floor(r.startTime));
    const end = Math.min(w.end, Math.floor(r.endTime), now);
    if (end <= start) continue;
    if (!r.flags.includes("IGNORE_JOBS")) {
      held.names.add(r.name);
      if (r.flags.includes("MAINT")) held.plannedDown += (end - start) * r.coreCount;
      else held.allocated += (end - start) * r.coreCount;
    }
    const assocs = admitted(r, tree);
    if (assocs.length === 0) continue;
    for (let hour = w.start; hour < w.end; hour += 3600) {
      const from = Math.max(start, hour);
      const to = Math.min(end, hour + 3600);
      if (to <= from) continue;
      const idle = (to - from) * r.coreCount - usedInside(r, jobs, from, to, now);
      if (idle <= 0) continue;
      const share = Math.floor(idle / assocs.length);
      for (const a of assocs) idleByAssoc.set(a, (idleByAssoc.get(a) ?? 0) + share);
    }
  }
  return { idleByAssoc, held };
}
