/**
 * @module compat/parse-time
 * Slurm's time inputs: durations for --time/--time-min (minutes, seconds rounded up) and
 * absolute times for --begin/--deadline (now+1hour, 16:00, 2026-12-24T10:00, teatime, 12/25 ...),
 * as summarised in /work/shared/slurm-surface/time-formats.md. Pure: `now` comes in as an
 * argument; local time uses the Date getters/constructor of the host time zone.
 */
import { err, ok, type Result } from "../lib/result.ts";

/** Slurm's INFINITE time limit (0xffffffff) as sent in JobSpec.timeLimitMin. */
export const TIME_INFINITE = 0xffffffff;

/** Exit code of option-value errors (Slurm exits with -1 there). */
const OPTION_EXIT = 255;

/**
 * Slurm's parse_time writes its complaint straight to stderr, without the command's
 * "<cmd>: error: " prefix (x-err-sbatch-begin-garbage, x-err-sacct-bad-start).
 */
export const isBareTimeError = (line: string): boolean => line.startsWith("Invalid time specification (pos=");

/**
 * A duration in seconds, or undefined when the text is not a duration. Rules of Slurm's
 * validity check: only digits, '-' and ':'; at most one '-', before any ':'; at most two ':';
 * enough number groups for the form (M, M:S, H:M:S, D-, D-H, D-H:M, D-H:M:S).
 */
export function parseDurationSec(text: string): number | undefined {
  if (!/^[0-9:-]+$/.test(text)) return undefined;
  const dashes = text.split("-").length - 1;
  const colons = text.split(":").length - 1;
  const groups = (text.match(/[0-9]+/g) ?? []).length;
  if (dashes > 1 || colons > 2) return undefined;
  if (dashes === 1) {
    const [days = "", clock = ""] = text.split("-");
    if (days === "" || clock.includes("-")) return undefined;
    const needed = colons === 0 ? 1 : colons + 2;
    if (groups < needed) return undefined;
    const [h = "0", m = "0", s = "0"] = clock === "" ? [] : clock.split(":");
    return Number(days) * 86400 + Number(h) * 3600 + Number(m) * 60 + Number(s);
  }
  if (groups !== colons + 1) return undefined;
  const parts = text.split(":").map(Number);
  if (parts.length === 1) return (parts[0] as number) * 60;
  if (parts.length === 2) return (parts[0] as number) * 60 + (parts[1] as number);
  return (parts[0] as number) * 3600 + (parts[1] as number) * 60 + (parts[2] as number);
}

/**
 * --time / --time-min: whole minutes, seconds rounded up. undefined = no limit (UNLIMITED,
 * INFINITE, -1, and 0 which Slurm turns into INFINITE for these options).
 */
export function parseTimeLimit(text: string, optionName = "--time"): Result<number | undefined> {
  const lower = text.toLowerCase();
  if (lower === "-1" || lower === "infinite" || lower === "unlimited") return ok(undefined);
  const seconds = parseDurationSec(text);
  const fail = err("BadTimeLimit", `Invalid ${optionName} specification`, OPTION_EXIT);
  if (seconds === undefined || !Number.isSafeInteger(seconds)) return fail;
  const minutes = Math.ceil(seconds / 60);
  if (minutes >= TIME_INFINITE) return fail;
  return ok(minutes === 0 ? undefined : minutes);
}

interface Parts {
  date?: { y: number; m: number; d: number; yearGiven: boolean };
  time?: { h: number; mi: number; s: number };
  /** 1 after "tomorrow". */
  dayOffset: number;
  /** "today" pins the date even when the time of day has passed. */
  todayGiven: boolean;
  /** Number of pieces recognised. */
  pieces: number;
}

const UNIT_SEC: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86400, week: 604800 };
const KEYWORD_HOURS: Record<string, number> = { midnight: 0, elevenses: 11, noon: 12, fika: 15, teatime: 16 };

/**
 * --begin / --deadline: epoch seconds. Submit options choose the next matching time
 * (Slurm's past=0). Errors carry both of Slurm's lines (parse_time's and the option's).
 * `allowEpochStart`: a date at or before 1970-01-01 means the start of time (sacct -S
 * 1970-01-01, as Toil's Slurm batch system asks) instead of an error.
 */
export function parseBeginTime(text: string, now: number, optionName = "--begin", allowEpochStart = false): Result<number> {
  const nowSec = Math.floor(now);
  const fail = (pos: number): Result<never> =>
    err("BadTime", `Invalid time specification (pos=${pos}): ${text}\nInvalid ${optionName} specification`, OPTION_EXIT);
  const lower = text.toLowerCase();
  if (lower.startsWith("uts")) {
    const digits = lower.slice(3);
    if (!/^[0-9]+$/.test(digits) || Number(digits) < 1000000) return fail(3);
    return ok(Number(digits));
  }
  if (lower.startsWith("now")) return relativeToNow(lower.slice(3), nowSec, fail);
  const parts = tokenize(lower);
  if (typeof parts === "number") return fail(parts);
  const when = resolve(parts, nowSec);
  if (when !== undefined && when <= 0 && allowEpochStart) return ok(0);
  return when === undefined || when <= 0 ? fail(0) : ok(when);
}

function relativeToNow(rest: string, nowSec: number, fail: (pos: number) => Result<never>): Result<number> {
  if (rest === "") return ok(nowSec);
  const m = /^([+-])\s*([0-9]+)\s*([a-z]*)$/.exec(rest);
  if (m === null) return fail(3);
  const unit = (m[3] as string).replace(/s$/, "");
  const scale = unit === "" ? 1 : UNIT_SEC[unit];
  if (scale === undefined) return fail(3 + rest.indexOf(m[3] as string));
  const delta = Number(m[2]) * scale;
  return ok(m[1] === "+" ? nowSec + delta : nowSec - delta);
}

const TIME_RE = /^([0-9]{1,2}):([0-9]{1,2})(?::([0-9]{1,2}))?(?:\s*([ap]m))?/;
const ISO_RE = /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:t|(?=\s|$))/;
const US_RE = /^([0-9]{1,2})([/.])([0-9]{1,2})(?:\2([0-9]{2}|[0-9]{4}))?(?:-|(?=\s|$))/;
const MMDD_RE = /^([0-9]{2})([0-9]{2})([0-9]{2})?(?=\s|$)/;

function clock(m: RegExpExecArray): Parts["time"] | undefined {
  let h = Number(m[1]);
  const mi = Number(m[2]);
  const s = m[3] === undefined ? 0 : Number(m[3]);
  if (m[4] !== undefined) {
    if (h < 1 || h > 12) return undefined;
    h = (h % 12) + (m[4] === "pm" ? 12 : 0);
  }
  return h > 23 || mi > 59 || s > 59 ? undefined : { h, mi, s };
}

function calendar(y: number | undefined, m: number, d: number): Parts["date"] | undefined {
  if (m < 1 || m > 12 || d < 1 || d > 31) return undefined;
  const year = y === undefined ? 0 : y < 100 ? 2000 + y : y;
  return { y: year, m, d, yearGiven: y !== undefined };
}

/** Split into date/time/keyword pieces; returns the failing position on error. */
function tokenize(lower: string): Parts | number {
  const parts: Parts = { dayOffset: 0, todayGiven: false, pieces: 0 };
  let pos = 0;
  while (pos < lower.length) {
    if (/\s/.test(lower[pos] as string)) {
      pos++;
      continue;
    }
    const used = piece(lower.slice(pos), parts);
    if (used === 0) return pos;
    parts.pieces++;
    pos += used;
  }
  return parts.pieces === 0 ? 0 : parts;
}

/** Consume one piece at the start of `s`; 0 when nothing matches. */
function piece(s: string, parts: Parts): number {
  const word = /^[a-z]+/.exec(s)?.[0];
  if (word !== undefined) return keyword(word, parts);
  const iso = ISO_RE.exec(s);
  if (iso !== null) return withTime(s, iso[0].length, calendar(Number(iso[1]), Number(iso[2]), Number(iso[3])), parts);
  const us = US_RE.exec(s);
  if (us !== null) {
    const y = us[4] === undefined ? undefined : Number(us[4]);
    return withTime(s, us[0].length, calendar(y, Number(us[1]), Number(us[3])), parts);
  }
  const mmdd = MMDD_RE.exec(s);
  if (mmdd !== null) {
    const y = mmdd[3] === undefined ? undefined : Number(mmdd[3]);
    return withTime(s, mmdd[0].length, calendar(y, Number(mmdd[1]), Number(mmdd[2])), parts);
  }
  const t = TIME_RE.exec(s);
  const time = t === null ? undefined : clock(t);
  if (t === null || time === undefined) return 0;
  parts.time = time;
  return t[0].length;
}

function keyword(word: string, parts: Parts): number {
  const hour = KEYWORD_HOURS[word];
  if (hour !== undefined) parts.time = { h: hour, mi: 0, s: 0 };
  else if (word === "today") parts.todayGiven = true;
  else if (word === "tomorrow") parts.dayOffset = 1;
  else return 0;
  return word.length;
}

function withTime(s: string, used: number, date: Parts["date"] | undefined, parts: Parts): number {
  if (date === undefined) return 0;
  parts.date = date;
  const attached = s[used - 1] === "t" || s[used - 1] === "-";
  if (!attached) return used;
  const t = TIME_RE.exec(s.slice(used));
  const time = t === null ? undefined : clock(t);
  if (t === null || time === undefined) return 0;
  parts.time = time;
  return used + t[0].length;
}

const epoch = (y: number, m: number, d: number, h: number, mi: number, s: number): number =>
  Math.floor(new Date(y, m - 1, d, h, mi, s).getTime() / 1000);

function resolve(parts: Parts, nowSec: number): number | undefined {
  const today = new Date(nowSec * 1000);
  const time = parts.time ?? { h: 0, mi: 0, s: 0 };
  if (parts.date !== undefined) {
    const { m, d } = parts.date;
    let y = parts.date.y;
    if (!parts.date.yearGiven) {
      const before = m < today.getMonth() + 1 || (m === today.getMonth() + 1 && d < today.getDate());
      y = today.getFullYear() + (before ? 1 : 0);
    }
    return epoch(y, m, d, time.h, time.mi, time.s);
  }
  const base = [today.getFullYear(), today.getMonth() + 1, today.getDate() + parts.dayOffset] as const;
  const at = epoch(base[0], base[1], base[2], time.h, time.mi, time.s);
  if (parts.dayOffset > 0 || parts.todayGiven || parts.time === undefined) return at;
  return at > nowSec ? at : epoch(base[0], base[1], base[2] + 1, time.h, time.mi, time.s);
}
