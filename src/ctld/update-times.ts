/**
 * @module ctld/update-times
 * Times in an `scontrol update job` are resolved here, at the edge, before the command
 * is logged: "StartTime=tomorrow" or "StartTime=2026-12-05T10:00" means a moment in the
 * controller's time zone, and apply() must not read the zone (replicas in other zones,
 * or a replay after a tzdata change, would disagree). The logged command carries
 * "uts<epoch>", which every replica reads the same way. A text that does not parse is
 * left as it is: apply() refuses it with Slurm's message.
 */
import { parseBeginTime } from "../compat/parse-time.ts";

/** Update keys (lower case) whose values are points in time. */
const TIME_KEYS = new Set(["starttime"]);

export function resolveUpdateTimes(fields: Readonly<Record<string, string>>, nowSec: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) {
    const parsed = TIME_KEYS.has(key.toLowerCase()) ? parseBeginTime(value, nowSec) : undefined;
    out[key] = parsed?.ok === true ? `uts${parsed.value}` : value;
  }
  return out;
}
