/**
 * @module format/sacct-time
 * `sacct -S/-E` times and the default window. sacct parses like --begin but
 * looking back (Slurm's parse_time past=1): a time of day alone means today
 * even when still ahead, a month/day without year means this year, or last
 * year when that month is later than the current one (time-formats.md §2).
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { parseBeginTime } from "../parse-time.ts";

const TIME_OF_DAY = /^\s*\d{1,2}:\d{1,2}(:\d{1,2})?(\s*[ap]m)?\s*$/i;
/** MM/DD, MM.DD or MMDD with no year, optionally followed by -HH:MM[:SS]. */
const MONTH_DAY = /^\s*(\d{1,2})[/.](\d{1,2})(-.*)?$|^\s*(\d{2})(\d{2})\s*$/;

const sameLocalDay = (a: number, b: number): boolean =>
  new Date(a * 1000).toDateString() === new Date(b * 1000).toDateString();

/** Move a local time to another year, keeping month, day and clock. */
function withYear(epochSec: number, year: number): number {
  const d = new Date(epochSec * 1000);
  d.setFullYear(year);
  return Math.floor(d.getTime() / 1000);
}

/** Epoch seconds for -S/-E; errors in Slurm's parse_time wording (exit 1). */
export function parseSacctTime(text: string, now: number): Result<number> {
  const nowSec = Math.floor(now);
  const parsed = parseBeginTime(text, nowSec, "--starttime", true);
  if (!parsed.ok) {
    const first = parsed.error.message.split("\n")[0] ?? parsed.error.message;
    return err("BadTime", first, 1);
  }
  let t = parsed.value;
  if (TIME_OF_DAY.test(text) && t > nowSec && !sameLocalDay(t, nowSec)) t -= 86400;
  const md = MONTH_DAY.exec(text);
  if (md !== null) {
    const month = Number(md[1] ?? md[4]);
    const nowYear = new Date(nowSec * 1000).getFullYear();
    const nowMonth = new Date(nowSec * 1000).getMonth() + 1;
    t = withYear(t, month > nowMonth ? nowYear - 1 : nowYear);
  }
  return ok(t);
}

/** Local midnight of the day `now` falls in (sacct's default -S). */
export function localMidnight(now: number): number {
  const d = new Date(Math.floor(now) * 1000);
  d.setHours(0, 0, 0, 0);
  return Math.floor(d.getTime() / 1000);
}
