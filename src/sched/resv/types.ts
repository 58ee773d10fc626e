/**
 * @module sched/resv/types
 * Advance reservations (scontrol create/update/delete reservation): a named
 * window on a set of nodes for some users or accounts. They live in the
 * replicated state and change only through apply()'s "reservation" command.
 * DAILY/WEEKLY reservations roll forward by whole periods, so the window that
 * applies at `now` is a pure function of the record and `now`.
 */

export interface ResvRecord {
  name: string;
  /** Epoch seconds of the first window. */
  startTime: number;
  endTime: number;
  nodes: string[];
  users: string[];
  accounts: string[];
  /** Upper-case flags as given (MAINT, IGNORE_JOBS, DAILY, WEEKLY, ...). */
  flags: string[];
  partition: string;
  /** CPUs on the reserved nodes (CoreCnt as scontrol shows it). */
  cores: number;
}

const PERIOD_SEC: Record<string, number> = { DAILY: 86400, WEEKLY: 7 * 86400 };

export function periodOf(r: ResvRecord): number {
  for (const f of r.flags) if (PERIOD_SEC[f] !== undefined) return PERIOD_SEC[f] as number;
  return 0;
}

/** The window in force at `now`: the first one that has not ended (periodic ones roll forward). */
export function windowAt(r: ResvRecord, now: number): { start: number; end: number } {
  const period = periodOf(r);
  if (period === 0 || now < r.endTime) return { start: r.startTime, end: r.endTime };
  const k = Math.floor((now - r.endTime) / period) + 1;
  return { start: r.startTime + k * period, end: r.endTime + k * period };
}

export const isActive = (r: ResvRecord, now: number): boolean => {
  const w = windowAt(r, now);
  return w.start <= now && now < w.end;
};

/** May this user/account run in the reservation? */
export function mayUse(r: ResvRecord, user: string, account: string): boolean {
  if (r.users.length === 0 && r.accounts.length === 0) return false;
  const userOk = r.users.length === 0 || (r.users.includes(user) && !r.users.includes(`-${user}`));
  const accountOk = r.accounts.length === 0 || r.accounts.includes(account);
  return userOk && accountOk;
}

/** Nodes a job may not use now because a reservation that is not its own holds them during [now, now + durationSec). */
export function reservedAgainst(reservations: ReadonlyMap<string, ResvRecord>, jobResv: string, now: number, durationSec: number): Set<string> {
  const out = new Set<string>();
  for (const r of reservations.values()) {
    if (r.name !== jobResv && overlaps(r, now, now + durationSec)) for (const n of r.nodes) out.add(n);
  }
  return out;
}

/** Windows a periodic reservation is checked for at most (a job longer than this many periods is bounded by them). */
const WINDOWS_MAX = 400;

/** Does any window of the reservation (periodic ones repeat) meet [from, to)? */
export function overlaps(r: ResvRecord, from: number, to: number): boolean {
  let w = windowAt(r, from);
  const period = periodOf(r);
  for (let i = 0; i < WINDOWS_MAX; i++) {
    if (w.start >= to) return false;
    if (from < w.end) return true;
    if (period === 0) return false;
    w = { start: w.start + period, end: w.end + period };
  }
  return true;
}

/**
 * Node state flags that active reservations add (sinfo `resv`, `idle$` for MAINT):
 * RESERVED on every node of an active reservation, MAINT as well when it has the MAINT flag.
 */
export function reservationNodeFlags(reservations: ReadonlyMap<string, ResvRecord>, now: number): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of reservations.values()) {
    if (!isActive(r, now)) continue;
    const add = r.flags.includes("MAINT") ? ["RESERVED", "MAINT"] : ["RESERVED"];
    for (const node of r.nodes) out.set(node, [...new Set([...(out.get(node) ?? []), ...add])]);
  }
  return out;
}
