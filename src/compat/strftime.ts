/**
 * @module compat/strftime
 * C strftime() for the patterns SLURM_TIME_FORMAT users write (`%s`, `%F %T`,
 * `%d/%m %H:%M`, `%a %d %b`, ...), in local time, C locale, with glibc's `-`
 * flag (no padding: `%-d`). A conversion not listed is printed as written.
 * Pure: the time comes in as epoch seconds.
 */

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"] as const;

const pad = (n: number, width: number, fill: string, noPad: boolean): string => (noPad ? String(n) : String(n).padStart(width, fill));

function dayOfYear(d: Date): number {
  const start = new Date(d.getFullYear(), 0, 1);
  return Math.round((new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime() - start.getTime()) / 86_400_000) + 1;
}

/** The numeric UTC offset as strftime's %z prints it: +0100, -0530. */
function offsetText(d: Date): string {
  const off = -d.getTimezoneOffset();
  const abs = Math.abs(off);
  return `${off < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
}

function conversion(c: string, d: Date, epochSec: number, noPad: boolean): string | undefined {
  const hour12 = d.getHours() % 12 === 0 ? 12 : d.getHours() % 12;
  switch (c) {
    case "a": return WEEKDAYS[d.getDay()]?.slice(0, 3);
    case "A": return WEEKDAYS[d.getDay()];
    case "b": case "h": return MONTHS[d.getMonth()]?.slice(0, 3);
    case "B": return MONTHS[d.getMonth()];
    case "C": return pad(Math.floor(d.getFullYear() / 100), 2, "0", noPad);
    case "d": return pad(d.getDate(), 2, "0", noPad);
    case "e": return pad(d.getDate(), 2, " ", noPad);
    case "D": return strftime("%m/%d/%y", epochSec);
    case "F": return strftime("%Y-%m-%d", epochSec);
    case "H": return pad(d.getHours(), 2, "0", noPad);
    case "I": return pad(hour12, 2, "0", noPad);
    case "j": return pad(dayOfYear(d), 3, "0", noPad);
    case "k": return pad(d.getHours(), 2, " ", noPad);
    case "l": return pad(hour12, 2, " ", noPad);
    case "m": return pad(d.getMonth() + 1, 2, "0", noPad);
    case "M": return pad(d.getMinutes(), 2, "0", noPad);
    case "n": return "\n";
    case "p": return d.getHours() < 12 ? "AM" : "PM";
    case "P": return d.getHours() < 12 ? "am" : "pm";
    case "r": return strftime("%I:%M:%S %p", epochSec);
    case "R": return strftime("%H:%M", epochSec);
    case "s": return String(Math.floor(epochSec));
    case "S": return pad(d.getSeconds(), 2, "0", noPad);
    case "t": return "\t";
    case "T": return strftime("%H:%M:%S", epochSec);
    case "u": return String(d.getDay() === 0 ? 7 : d.getDay());
    case "w": return String(d.getDay());
    case "y": return pad(d.getFullYear() % 100, 2, "0", noPad);
    case "Y": return String(d.getFullYear());
    case "z": return offsetText(d);
    case "%": return "%";
    default: return undefined;
  }
}

export function strftime(pattern: string, epochSec: number): string {
  const d = new Date(Math.floor(epochSec) * 1000);
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch !== "%" || i + 1 >= pattern.length) {
      out += ch;
      continue;
    }
    const noPad = pattern[i + 1] === "-";
    const c = pattern[noPad ? i + 2 : i + 1] ?? "";
    const text = conversion(c, d, epochSec, noPad);
    if (text === undefined) {
      out += ch;
      continue;
    }
    out += text;
    i += noPad ? 2 : 1;
  }
  return out;
}
