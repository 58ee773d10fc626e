/**
 * @module format-time
 * How Slurm prints durations and timestamps: squeue/sinfo "M:SS" family,
 * sacct/scontrol "[D-]HH:MM:SS", ISO local times and the ctime-like header
 * line of `squeue -l` / `sinfo -l` (facts: shared/slurm-surface/time-formats.md).
 * Pure: epoch seconds come in as arguments; only local-time getters are used.
 */

import { strftime } from "./strftime.ts";

const SECS_PER_DAY = 86400;
const SECS_PER_YEAR = 365 * SECS_PER_DAY;

// Not padStart: it is slow in this engine and sacct formats tens of thousands of these.
const two = (n: number): string => (n < 10 ? `0${n}` : String(n));

interface Dhms {
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

/** Split whole seconds (fractions dropped) into days/hours/minutes/seconds. */
function splitSecs(secTotal: number): Dhms {
  const s = Math.floor(secTotal);
  return {
    days: Math.floor(s / SECS_PER_DAY),
    hours: Math.floor(s / 3600) % 24,
    minutes: Math.floor(s / 60) % 60,
    seconds: s % 60,
  };
}

/**
 * squeue/sinfo style without range checks: "0:00", "5:07", "1:02:03",
 * "1-02:03:04" (hours and minutes not zero-padded when leading). Negative
 * input is treated as 0 here; squeue's own check is in formatDuration.
 */
export function formatSecs(sec: number): string {
  const t = splitSecs(Math.max(0, sec));
  if (t.days > 0) return `${t.days}-${two(t.hours)}:${two(t.minutes)}:${two(t.seconds)}`;
  if (t.hours > 0) return `${t.hours}:${two(t.minutes)}:${two(t.seconds)}`;
  return `${t.minutes}:${two(t.seconds)}`;
}

/**
 * squeue TIME (%M), TIME_LEFT (%L) and step times: formatSecs, except that a
 * negative value or one over 365 days prints "INVALID", as squeue does.
 */
export function formatDuration(sec: number): string {
  if (!Number.isFinite(sec) || sec < 0 || sec > SECS_PER_YEAR) return "INVALID";
  return formatSecs(sec);
}

/**
 * squeue %l TIME_LIMIT: undefined (INFINITE) → "UNLIMITED"; minutes otherwise,
 * printed like formatDuration ("10:00", "1:00:00", "1-00:00:00"). A limit over
 * a year prints "INVALID" in squeue (e.g. sbatch --time=99999999).
 */
export function formatTimeLimit(min: number | undefined): string {
  if (min === undefined) return "UNLIMITED";
  return formatDuration(min * 60);
}

/**
 * sinfo %l TIMELIMIT / %L DEFAULTTIME: INFINITE prints lower-case "infinite"
 * (golden 003); sinfo has no over-a-year check. `undefined` = INFINITE.
 */
export function formatTimeLimitSinfo(min: number | undefined): string {
  if (min === undefined) return "infinite";
  return formatSecs(min * 60);
}

/**
 * sacct Elapsed/CPUTime/Suspended, scontrol RunTime=/DelayBoot=: always
 * two-digit hours: "00:00:00", "00:01:01", "1-00:00:00". Negative → 0.
 */
export function formatElapsed(sec: number): string {
  const t = splitSecs(Math.max(0, Number.isFinite(sec) ? sec : 0));
  const hms = `${two(t.hours)}:${two(t.minutes)}:${two(t.seconds)}`;
  return t.days > 0 ? `${t.days}-${hms}` : hms;
}

/**
 * sacct Timelimit / scontrol TimeLimit=: minutes as "[D-]HH:MM:SS";
 * undefined (INFINITE) → "UNLIMITED". 10 → "00:10:00" (golden 065),
 * 61 → "01:01:00", 3600 → "2-12:00:00". (Slurm's NO_VAL "Partition_Limit"
 * has no representation in Spur's records.)
 */
export function formatTimeLimitScontrol(min: number | undefined): string {
  if (min === undefined) return "UNLIMITED";
  return formatElapsed(min * 60);
}

/**
 * sacct TotalCPU/UserCPU/SystemCPU: "D-HH:MM:SS" with days, "HH:MM:SS" with
 * hours, "MM:SS.mmm" under an hour when there is a sub-second part, else
 * "00:MM:SS". 1.5 → "00:01.500", 75 → "00:01:15". Pass whole seconds for
 * AveCPU/MinCPU (no milliseconds there).
 */
export function formatCpuTime(sec: number): string {
  const safe = Math.max(0, Number.isFinite(sec) ? sec : 0);
  const t = splitSecs(safe);
  const ms = Math.round((safe - Math.floor(safe)) * 1000);
  if (t.days > 0) return `${t.days}-${two(t.hours)}:${two(t.minutes)}:${two(t.seconds)}`;
  if (t.hours > 0) return `${two(t.hours)}:${two(t.minutes)}:${two(t.seconds)}`;
  if (ms > 0) return `${two(t.minutes)}:${two(t.seconds)}.${String(Math.min(ms, 999)).padStart(3, "0")}`;
  return `00:${two(t.minutes)}:${two(t.seconds)}`;
}

/**
 * ISO local time "2026-12-02T12:36:11" (strftime %FT%T), as every command
 * prints timestamps by default. 0 (not set) → `zeroAs`: "Unknown" for
 * sacct/scontrol (default), pass "N/A" for squeue or "None" where Slurm
 * prints that. Non-finite values are treated like 0.
 */
export function formatIsoTime(epochSec: number, zeroAs = "Unknown"): string {
  if (!Number.isFinite(epochSec) || epochSec === 0) return zeroAs;
  if (timeStyle.kind !== "standard") return styledTime(epochSec);
  if (invalidFormat !== undefined) invalidFormatUsed = true;
  const d = new Date(Math.floor(epochSec) * 1000);
  const date = `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
  return `${date}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

/**
 * First line of `squeue -l` / `sinfo -l`: "Wed Dec 02 12:36:06 2026"
 * (local time; the day is zero-padded, unlike C's ctime()).
 */
export function formatCtime(epochSec: number): string {
  const d = new Date(Math.floor(epochSec) * 1000);
  const day = `${WEEKDAYS[d.getDay()]} ${MONTHS[d.getMonth()]} ${two(d.getDate())}`;
  return `${day} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())} ${d.getFullYear()}`;
}

/**
 * SLURM_TIME_FORMAT (shared/slurm-surface/time-formats.md; oracle): `standard`, unset or
 * empty = ISO; `relative` = by distance from today; otherwise a strftime pattern that
 * holds a `%` and is shorter than 32 characters, else the command prints
 * "invalid SLURM_TIME_FORMAT = '<value>'" and uses ISO. Every command that prints times
 * (squeue, sinfo, sacct, scontrol, sbatch --test-only) calls useTimeFormat() once at its
 * start, before any formatting, so that this one formatter serves them all; JSON output
 * carries epoch numbers and is not affected.
 */
type TimeStyle = { kind: "standard" } | { kind: "relative"; today: number } | { kind: "strftime"; pattern: string };

let timeStyle: TimeStyle = { kind: "standard" };
/** An unusable SLURM_TIME_FORMAT: Slurm reports it once, when the command first prints a time. */
let invalidFormat: string | undefined;
let invalidFormatUsed = false;

/** True when times print as ISO and no invalid SLURM_TIME_FORMAT waits to be reported (time-memo's shortcut applies). */
export const isStandardTimeFormat = (): boolean => timeStyle.kind === "standard" && invalidFormat === undefined;

/** Whether a SLURM_TIME_FORMAT value asks for the standard (ISO) style: unset, empty or "standard". */
export const isStandardTimeValue = (value: string | undefined): value is undefined | "" | "standard" => value === undefined || value === "" || value === "standard";

/** This process's time zone (its local times are in it). Looked up when asked: it costs a command's start 15-40 ms. */
export const localTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * Whether a listing another process rendered, naming the zone of its local times (empty: it
 * prints none), reads here as this process would print it: only in the same zone.
 */
export const renderedZoneFits = (zone: string | undefined): boolean => (zone ?? "") === "" || zone === localTimeZone();

/** Set the style for this command (its first step, `nowSec` = the command's now). */
export function useTimeFormat(value: string | undefined, nowSec: number): void {
  timeStyle = { kind: "standard" };
  invalidFormat = undefined;
  invalidFormatUsed = false;
  if (isStandardTimeValue(value)) return;
  if (value === "relative") timeStyle = { kind: "relative", today: dayNumber(nowSec) };
  else if (!value.includes("%") || value.length >= 32) invalidFormat = value;
  else timeStyle = { kind: "strftime", pattern: value };
}

/** "<cmd>: error: invalid SLURM_TIME_FORMAT = '<value>'" once a time was printed with an invalid one (oracle), else "". */
export function timeFormatError(cmd: string): string {
  if (invalidFormat === undefined || !invalidFormatUsed) return "";
  invalidFormatUsed = false;
  return `${cmd}: error: invalid SLURM_TIME_FORMAT = '${invalidFormat}'\n`;
}

/** Run a command's main under the SLURM_TIME_FORMAT of its environment; the error line goes first on stderr. */
export async function withTimeFormat<R extends { stderr: string }>(cmd: string, env: Record<string, string | undefined>, nowSec: number, run: () => Promise<R>): Promise<R> {
  useTimeFormat(env.SLURM_TIME_FORMAT, nowSec);
  const result = await run();
  const error = timeFormatError(cmd);
  return error === "" ? result : { ...result, stderr: error + result.stderr };
}

/** Slurm's day distance: 1000 * year + day of the year, local time (so a year boundary jumps). */
function dayNumber(epochSec: number): number {
  const d = new Date(Math.floor(epochSec) * 1000);
  const start = new Date(d.getFullYear(), 0, 1);
  const yday = Math.round((new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime() - start.getTime()) / 86_400_000);
  return 1000 * d.getFullYear() + yday;
}

function styledTime(epochSec: number): string {
  if (timeStyle.kind === "strftime") return strftime(timeStyle.pattern, epochSec);
  if (timeStyle.kind !== "relative") return formatIsoTime(epochSec);
  const distance = dayNumber(epochSec) - timeStyle.today;
  if (distance === 0) return strftime("%H:%M:%S", epochSec);
  if (distance === -1) return strftime("Ystday %H:%M", epochSec);
  if (distance === 1) return strftime("Tomorr %H:%M", epochSec);
  if (distance < -365 || distance > 365) return strftime("%-d %b %Y", epochSec);
  if (distance < -1 || distance > 6) return strftime("%-d %b %H:%M", epochSec);
  return strftime("%a %H:%M", epochSec);
}
