/**
 * @module sched/resv/apply-resv
 * The "reservation" command: create, update and delete, with scontrol's keys
 * (StartTime and EndTime already resolved to epoch seconds by the CLI,
 * Duration in minutes or Slurm time syntax, Nodes= or NodeCnt=, Users=,
 * Accounts=, Flags=, PartitionName=). Nodes for NodeCnt are the first idle
 * ones in configuration order (IGNORE_JOBS: any); MAINT, IGNORE_JOBS, DAILY
 * and WEEKLY are understood, other flags are kept as given. Pure.
 */
import type { Command } from "../model/commands.ts";
import type { ClusterState } from "../model/types.ts";
import { emptyResult, rejected, type ApplyResult } from "../model/apply-result.ts";
import { expandHostlist } from "../../compat/hostlist.ts";
import { parseTimeLimit } from "../../compat/parse-time.ts";
import { windowAt, type ResvRecord } from "./types.ts";

type ResvCommand = Extract<Command, { type: "reservation" }>;

const list = (v: string | undefined): string[] => (v ?? "").split(",").map((s) => s.trim()).filter(Boolean);

export function applyReservation(state: ClusterState, c: ResvCommand): ApplyResult {
  if (c.by.uid !== 0 && !state.config.operators.includes(c.by.user)) return rejected("AccessDenied", "Access/permission denied");
  const f = Object.fromEntries(Object.entries(c.fields).map(([k, v]) => [k.toLowerCase(), v]));
  if (c.action === "delete") {
    const gone = state.reservations.get(c.name);
    if (gone === undefined) return rejected("ReservationInvalid", "Requested reservation is invalid");
    state.reservations.delete(c.name);
    keepDeleted(state, gone, c.at);
    return emptyResult();
  }
  if (c.action === "update") {
    const old = state.reservations.get(c.name);
    if (old === undefined) return rejected("ReservationInvalid", "Requested reservation is invalid");
    const next = build(state, { ...old, flags: [...old.flags] }, f, c.at);
    if (typeof next === "string") return rejected("ReservationInvalid", next);
    state.reservations.set(c.name, next);
    return { ...emptyResult(), text: c.name };
  }
  let name = c.name || f.reservationname || f.reservation || "";
  if (name === "") {
    let n = 1;
    const base = (list(f.users)[0] ?? list(f.accounts)[0] ?? c.by.user).replace(/^-/, "");
    while (state.reservations.has(`${base}_${n}`)) n++;
    name = `${base}_${n}`;
  }
  if (state.reservations.has(name)) return rejected("ReservationInvalid", "Reservation request failed: Duplicate reservation name");
  if (f.users === undefined && f.accounts === undefined) return rejected("ReservationInvalid", "Either Users or Accounts must be specified. No reservation created.");
  if (f.starttime === undefined) return rejected("ReservationInvalid", "StartTime must be specified. No reservation created.");
  const fresh: ResvRecord = { name, startTime: 0, endTime: 0, nodes: [], users: [], accounts: [], flags: [], partition: "", cores: 0 };
  const made = build(state, fresh, f, c.at);
  if (typeof made === "string") return rejected("ReservationInvalid", made);
  if (made.nodes.length === 0) return rejected("ReservationInvalid", "Nodes or NodeCnt must be specified. No reservation created.");
  state.reservations.set(name, made);
  return { ...emptyResult(), text: name };
}

/** How many deleted reservations the state keeps for sreport (the oldest go first). */
export const MAX_DELETED_RESVS = 1000;

/**
 * A deleted reservation as slurmdbd keeps it: its window in force, ending at the deletion if
 * that came first (oracle 22.05: created 07:00:43 for 30 minutes, deleted 07:08:00, `sreport
 * reservation utilization` shows 07:00:43 - 07:08:00). One deleted before its window began is
 * not kept (slurmdbd removes a reservation that never started).
 */
function keepDeleted(state: ClusterState, r: ResvRecord, at: number): void {
  const w = windowAt(r, at);
  if (at <= w.start) return;
  const kept = state.deletedReservations ?? [];
  kept.push({ ...r, startTime: w.start, endTime: Math.min(w.end, at), flags: r.flags.filter((f) => f !== "DAILY" && f !== "WEEKLY") });
  if (kept.length > MAX_DELETED_RESVS) kept.splice(0, kept.length - MAX_DELETED_RESVS);
  state.deletedReservations = kept;
}

function build(state: ClusterState, r: ResvRecord, f: Record<string, string>, at: number): ResvRecord | string {
  if (f.starttime !== undefined) {
    const start = Number(f.starttime);
    if (!Number.isFinite(start)) return "Invalid StartTime";
    const length = r.endTime - r.startTime;
    r.startTime = start;
    if (length > 0) r.endTime = start + length;
  }
  if (f.duration !== undefined) {
    const d = parseTimeLimit(f.duration);
    if (!d.ok || d.value === undefined) return `Invalid duration: ${f.duration}`;
    r.endTime = r.startTime + d.value * 60;
  } else if (f.endtime !== undefined) {
    r.endTime = Number(f.endtime);
  } else if (r.endTime === 0) {
    r.endTime = r.startTime + 365 * 86400;
  }
  if (!(r.endTime > r.startTime)) return "Reservation request failed: Invalid time specification";
  if (f.users !== undefined) r.users = list(f.users);
  if (f.accounts !== undefined) r.accounts = list(f.accounts);
  if (f.partitionname !== undefined || f.partition !== undefined) r.partition = f.partitionname ?? f.partition ?? "";
  if (f.flags !== undefined) r.flags = applyFlags(r.flags, f.flags);
  if (f.nodes !== undefined) {
    const names = f.nodes.toUpperCase() === "ALL" ? { ok: true as const, value: [...state.nodes.keys()] } : expandHostlist(f.nodes);
    if (!names.ok || names.value.some((n) => !state.nodes.has(n))) return "Invalid node name specified";
    r.nodes = names.value;
  } else if (f.nodecnt !== undefined) {
    const count = Number(f.nodecnt);
    if (!Number.isInteger(count) || count <= 0) return `Invalid NodeCnt: ${f.nodecnt}`;
    const pick = pickNodes(state, r, count, at);
    if (pick === undefined) return "Reservation request failed: Requested nodes are busy";
    r.nodes = pick;
  }
  r.cores = r.nodes.reduce((s, n) => s + (state.nodes.get(n)?.info.cpus ?? 0), 0);
  return r;
}

function applyFlags(old: string[], text: string): string[] {
  const given = list(text.replace(/^[+-]=?/, "")).map((x) => x.toUpperCase());
  if (text.startsWith("-")) return old.filter((x) => !given.includes(x));
  return text.startsWith("+") ? [...new Set([...old, ...given])] : given;
}

function pickNodes(state: ClusterState, r: ResvRecord, count: number, at: number): string[] | undefined {
  const pool = r.partition === "" ? [...state.nodes.keys()] : (state.partitions.find((p) => p.info.name === r.partition)?.nodeNames ?? []);
  const ignoreJobs = r.flags.includes("IGNORE_JOBS");
  const busyAt = new Set<string>();
  for (const job of state.jobs.values()) {
    if (job.info.state !== "RUNNING") continue;
    const end = job.info.timeLimitMin === undefined ? Number.POSITIVE_INFINITY : job.info.startTime + job.info.timeLimitMin * 60;
    if (end > Math.max(at, r.startTime)) for (const a of job.info.alloc) busyAt.add(a.node);
  }
  const taken = new Set<string>();
  for (const other of state.reservations.values()) {
    if (other.name !== r.name && other.startTime < r.endTime && r.startTime < other.endTime) for (const n of other.nodes) taken.add(n);
  }
  const free = pool.filter((n) => {
    const node = state.nodes.get(n);
    if (node === undefined || taken.has(n) || node.down) return false;
    // A job that may still run when the reservation starts keeps its node (unless IGNORE_JOBS).
    return ignoreJobs || !busyAt.has(n);
  });
  return free.length >= count ? free.slice(0, count) : undefined;
}
