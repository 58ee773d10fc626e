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

/**
 * --begin / --deadline: epoch seconds. Submit options choose the next matching time
 * (Slurm's past=0). Errors carry both of Slurm's lines (parse_time's and the option's),
 * with the position 22.05's scanner reports (tests/unit/options/parse-time.test.ts holds
 * the oracle's answers). `allowEpochStart`: a date at or before 1970-01-01 means the start
 * of time (sacct -S 1970-01-01, as Toil's Slurm batch system asks) instead of an error.
 */
export function parseBeginTime(text: string, now: number, optionName = "--begin", allowEpochStart = false): Result<number> {
  const nowSec = Math.floor(now);
  const fail = (pos: number): Result<never> =>
    err("BadTime", `Invalid time specification (pos=${pos}): ${text}\nInvalid ${optionName} specification`, OPTION_EXIT);
  if (text.toLowerCase().startsWith("uts")) {
    const digits = text.slice(3);
    if (!/^[0-9]+$/.test(digits) || Number(digits) < 1000000) return fail(0);
    return ok(Number(digits));
  }
  const parts = scan(text);
  // nothing to read (empty, blanks, "-", "T"): 22.05's parse_time answers 0 without a word, which
  // the option then refuses by its own line alone (sacct -S reads it as the start of time)
  if (parts === NOTHING) return allowEpochStart ? ok(0) : err("BadTime", `Invalid ${optionName} specification`, OPTION_EXIT);
  if (typeof parts === "number") return fail(parts);
  const when = resolve(parts, nowSec);
  if (when !== undefined && when <= 0 && allowEpochStart) return ok(0);
  return when === undefined || when <= 0 ? fail(0) : ok(when);
}

interface Parts {
  date?: { y: number; m: number; d: number; yearGiven: boolean };
  time?: { h: number; mi: number; s: number };
  /** 1 after "tomorrow". */
  dayOffset: number;
  /** "today" pins the date even when the time of day has passed. */
  todayGiven: boolean;
  /** Seconds from now of a now[+-N[unit]] piece. */
  fromNow?: number;
  /** Number of pieces recognised. */
  pieces: number;
}

const UNITS: readonly [string, number][] = [["second", 1], ["minute", 60], ["hour", 3600], ["day", 86400], ["week", 604800]];
// "elevenses" as current Slurm's tables list it (22.05 refuses the word, pos=0: kept as a listed difference).
const KEYWORD_HOURS: readonly [string, number][] = [["midnight", 0], ["elevenses", 11], ["noon", 12], ["fika", 15], ["teatime", 16]];

/** A failed piece: the position parse_time names. */
class At {
  constructor(readonly pos: number) {}
}

const isSpace = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const digitsAt = (s: string, p: number): number => {
  let k = 0;
  while (isDigit(s[p + k])) k++;
  return k;
};
const startsCi = (s: string, p: number, word: string): boolean => s.slice(p, p + word.length).toLowerCase() === word;
/** A piece ends at a blank or the end; anything else there is the error. */
const ended = (s: string, p: number): number => {
  if (p < s.length && !isSpace(s[p])) throw new At(p);
  return p;
};

/**
 * The pieces of an absolute time, scanned left to right as 22.05 scans them: blanks and an
 * upper-case T between pieces are skipped ("T10:00" is a time, "TODAY" fails at 1), words
 * compare without case, a number is a time (H:MM), an ISO date (YYYY-MM-DD), a US date
 * (M/D, M.D, with a year YY) or a compact one (MMDD[YY]); the error position is where the
 * failing piece stopped making sense. Returns the failing position on error.
 */
function scan(text: string): Parts | number | typeof NOTHING {
  const parts: Parts = { dayOffset: 0, todayGiven: false, pieces: 0 };
  let p = 0;
  try {
    while (p < text.length) {
      const c = text[p] as string;
      // 22.05 skips a '-' between pieces as it does a blank ("-5" fails after the 5, "-5:00" is 05:00)
      if (isSpace(c) || c === "T" || c === "-") {
        p++;
        continue;
      }
      p = piece(text, p, parts);
      parts.pieces++;
    }
  } catch (e) {
    if (e instanceof At) return e.pos;
    throw e;
  }
  return parts.pieces === 0 ? NOTHING : parts;
}

/** scan's answer for a text with no piece at all. */
const NOTHING: unique symbol = Symbol("nothing");

/** One piece at `p`; returns where it ends. */
function piece(s: string, p: number, parts: Parts): number {
  if (startsCi(s, p, "now")) return fromNow(s, p + 3, parts);
  if (startsCi(s, p, "today")) {
    parts.todayGiven = true;
    return ended(s, p + 5);
  }
  if (startsCi(s, p, "tomorrow")) {
    parts.dayOffset = 1;
    return ended(s, p + 8);
  }
  for (const [word, hour] of KEYWORD_HOURS) {
    if (!startsCi(s, p, word)) continue;
    parts.time = { h: hour, mi: 0, s: 0 };
    return ended(s, p + word.length);
  }
  if (!isDigit(s[p])) throw new At(p);
  const k = digitsAt(s, p);
  const next = s[p + k];
  if (k === 4 && next === "-") return isoDate(s, p, parts);
  if (k <= 2 && (next === "/" || next === ".")) return usDate(s, p, next, parts);
  // one or two digits are an hour otherwise ("10" fails where its ':' should be, "99-12-31" at the hour)
  if (k <= 2 || next === ":") return clockAt(s, p, parts);
  return compactDate(s, p, parts);
}

/** now[ ][+|-][ ]N[ ][unit[s]]: no unit is seconds; units are whole words (h, min, s are refused at the number). */
function fromNow(s: string, p: number, parts: Parts): number {
  let q = p;
  while (isSpace(s[q])) q++;
  const sign = s[q];
  if (sign !== "+" && sign !== "-") {
    if (q === p) ended(s, p);
    parts.fromNow = 0;
    return q;
  }
  const signAt = q;
  q++;
  while (isSpace(s[q])) q++;
  const k = digitsAt(s, q);
  if (k === 0) throw new At(signAt);
  const numberAt = q;

  const count = Number(s.slice(q, q + k));
  q += k;
  while (isSpace(s[q])) q++;
  let scale = 1;
  if (q < s.length && /[a-z]/i.test(s[q] as string)) {
    const unit = UNITS.find(([name]) => startsCi(s, q, name));
    // named one before the word ("now+3h" at 4, "now+1 min" at 5)
    if (unit === undefined) throw new At(q - 1);
    scale = unit[1];
    q += unit[0].length;
    if (s[q] === "s" || s[q] === "S") q++;
  } else if (q > numberAt + k) q = numberAt + k;
  parts.fromNow = (sign === "+" ? 1 : -1) * count * scale;
  return ended(s, q);
}

/** Exactly two digits at `p` (a minute or second); the error is where a digit is missing. */
function twoDigits(s: string, p: number): number {
  if (!isDigit(s[p])) throw new At(p);
  if (!isDigit(s[p + 1])) throw new At(p + 1);
  return Number(s.slice(p, p + 2));
}

/** H[H]:MM[:SS][ ][am|pm] at `p`. */
function clockAt(s: string, p: number, parts: Parts): number {
  const k = digitsAt(s, p);
  if (k === 0 || k > 2) throw new At(p);
  let h = Number(s.slice(p, p + k));
  if (h > 23) throw new At(p);
  let q = p + k;
  // a missing ':' is named after the hour, two places earlier for hour 0 (oracle: "10" 2, "0" -1, "00" and " 0" 0)
  if (s[q] !== ":") throw new At(h === 0 ? q - 2 : q);
  const mi = twoDigits(s, q + 1);
  if (mi > 59) throw new At(q + 1);
  q += 3;
  let sec = 0;
  if (s[q] === ":") {
    sec = twoDigits(s, q + 1);
    if (sec > 59) throw new At(q + 1);
    q += 3;
  }
  let r = q;
  while (isSpace(s[r])) r++;
  const half = s.slice(r, r + 2).toLowerCase();
  if ((half === "am" || half === "pm") && (r + 2 >= s.length || isSpace(s[r + 2]) || r === q)) {
    if (h > 12) throw new At(r);
    h = half === "am" ? h % 12 : h === 12 ? 12 : h + 12;
    q = r + 2;
  }
  parts.time = { h, mi, s: sec };
  return ended(s, q);
}

/** After a date: a blank or the end, or T / - and an optional time of day. */
function afterDate(s: string, q: number, parts: Parts, joiners: string): number {
  const c = s[q];
  if (c === undefined || isSpace(c)) return q;
  if (!joiners.includes(c)) throw new At(q);
  const t = q + 1;
  if (t >= s.length || isSpace(s[t])) return t;
  return clockAt(s, t, parts);
}

function setDate(parts: Parts, y: number | undefined, m: number, d: number): void {
  parts.date = { y: y === undefined ? 0 : y < 100 ? 2000 + y : y, m, d, yearGiven: y !== undefined };
}

/** YYYY-MM-DD[T[time]]: anything but two-digit month and day fails at the year. */
function isoDate(s: string, p: number, parts: Parts): number {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}/.test(s.slice(p, p + 10))) throw new At(p);
  const m = Number(s.slice(p + 5, p + 7));
  const d = Number(s.slice(p + 8, p + 10));
  if (m < 1 || m > 12) throw new At(p + 5);
  if (d < 1 || d > 31) throw new At(p + 8);
  setDate(parts, Number(s.slice(p, p + 4)), m, d);
  return afterDate(s, p + 10, parts, "T");
}

/** A two-digit year: one or three digits fail after them, four or more after the first two. */
function yearAt(s: string, p: number): number | undefined {
  const k = digitsAt(s, p);
  if (k === 0) return undefined;
  if (k === 1 || k === 3) throw new At(p + k);
  if (k > 3) throw new At(p + 2);
  return Number(s.slice(p, p + 2));
}

/** M[M]/D[D][/YY] (or with dots), then T / - and a time. */
function usDate(s: string, p: number, sep: string, parts: Parts): number {
  const mk = digitsAt(s, p);
  const m = Number(s.slice(p, p + mk));
  if (m < 1 || m > 12) throw new At(p);
  const dayAt = p + mk + 1;
  const dk = digitsAt(s, dayAt);
  if (dk === 0 || dk > 2) throw new At(dayAt + dk);
  const d = Number(s.slice(dayAt, dayAt + dk));
  if (d < 1 || d > 31) throw new At(dayAt);
  let q = dayAt + dk;
  let y: number | undefined;
  if (s[q] === sep) {
    y = yearAt(s, q + 1);
    q += 1 + (y === undefined ? 0 : 2);
  }
  setDate(parts, y, m, d);
  return afterDate(s, q, parts, "T-");
}

/** MMDD[YY] (MMD with three digits: 123 is 12/3), then T / - and a time. */
function compactDate(s: string, p: number, parts: Parts): number {
  const m = Number(s.slice(p, p + 2));
  if (m < 1 || m > 12) throw new At(p);
  const dk = Math.min(2, digitsAt(s, p + 2));
  const d = Number(s.slice(p + 2, p + 2 + dk));
  if (d < 1 || d > 31) throw new At(p + 2);
  const y = yearAt(s, p + 2 + dk);
  setDate(parts, y, m, d);
  return afterDate(s, p + 2 + dk + (y === undefined ? 0 : 2), parts, "T-");
}

const epoch = (y: number, m: number, d: number, h: number, mi: number, s: number): number =>
  Math.floor(new Date(y, m - 1, d, h, mi, s).getTime() / 1000);

function resolve(parts: Parts, nowSec: number): number | undefined {
  if (parts.fromNow !== undefined) return fromNowResolved(parts, nowSec + parts.fromNow);
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

/** now+N alone, or with a date or time of day that replaces that part of it (no rolling forward: "now+1hour 10:00" is today 10:00). */
function fromNowResolved(parts: Parts, base: number): number {
  if (parts.date === undefined && parts.time === undefined) return base;
  const b = new Date(base * 1000);
  const date = parts.date ?? { y: b.getFullYear(), m: b.getMonth() + 1, d: b.getDate(), yearGiven: true };
  const year = date.yearGiven ? date.y : b.getFullYear();
  const time = parts.time ?? { h: b.getHours(), mi: b.getMinutes(), s: b.getSeconds() };
  return epoch(year, date.m, date.d, time.h, time.mi, time.s);
}
