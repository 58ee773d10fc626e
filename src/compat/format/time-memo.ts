/**
 * @module format/time-memo
 * formatIsoTime for long listings (squeue/sacct over 10k jobs): the local
 * date and clock up to the minute are worked out once per distinct minute and
 * the seconds appended, with the exact formatIsoTime text as the fallback.
 * Commands call resetTimeMemo() first, so a changed TZ is never served stale.
 */
import { formatIsoTime, isStandardTimeFormat } from "../format-time.ts";

/** Per UTC minute: the text before the seconds, or null when a minute cannot be shortcut. */
const MINUTES = new Map<number, string | null>();
const MINUTES_LIMIT = 16384;

/** Forget remembered minutes (call at the start of a command). */
export function resetTimeMemo(): void {
  MINUTES.clear();
}

/**
 * The prefix shared by every second of `minute`: only when the minute's first
 * and last seconds print as `<prefix>00` and `<prefix>59` (no offset change
 * inside the minute, whole-minute offset).
 */
function minutePrefix(minute: number): string | null {
  const first = formatIsoTime(minute * 60, "");
  const last = formatIsoTime(minute * 60 + 59, "");
  if (first === "" || !first.endsWith(":00") || !last.endsWith(":59")) return null;
  const prefix = first.slice(0, -2);
  return last.slice(0, -2) === prefix ? prefix : null;
}

/** Local times printed through isoTimeText since start: a renderer compares it before and after (squeue-view.ts). */
let localTimes = 0;
export const localTimesPrinted = (): number => localTimes;

/** Exactly `formatIsoTime(epochSec, zeroAs)`. */
export function isoTimeText(epochSec: number, zeroAs = "Unknown"): string {
  if (!Number.isFinite(epochSec) || epochSec === 0) return zeroAs;
  localTimes++;
  // SLURM_TIME_FORMAT set: the minute shortcut does not apply
  if (!isStandardTimeFormat()) return formatIsoTime(epochSec, zeroAs);
  const sec = Math.floor(epochSec);
  const minute = Math.floor(sec / 60);
  let prefix = MINUTES.get(minute);
  if (prefix === undefined) {
    prefix = minutePrefix(minute);
    if (MINUTES.size >= MINUTES_LIMIT) MINUTES.clear();
    MINUTES.set(minute, prefix);
  }
  if (prefix === null) return formatIsoTime(epochSec, zeroAs);
  const s = sec - minute * 60;
  return s < 10 ? `${prefix}0${s}` : `${prefix}${s}`;
}
