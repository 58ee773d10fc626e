/**
 * @module format-time
 * How Slurm prints durations and timestamps: squeue/sinfo "M:SS" family,
 * sacct/scontrol "[D-]HH:MM:SS", ISO local times and the ctime-like header
 * line of `squeue -l` / `sinfo -l` (facts: shared/slurm-surface/time-formats.md).
 * Pure: epoch seconds come in as arguments; only local-time getters are used.
 */

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
