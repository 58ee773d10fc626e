/**
 * @module compat/parse-size
 * Memory sizes as Slurm reads them for --mem, --mem-per-cpu, --mem-per-gpu and --tmp:
 * a whole number with an optional one-letter unit K, M, G or T (any case; default M),
 * which may be followed by one B or b (oracle, Slurm 22.05: `500MB`, `1GB`, `1Gb`, `1024KB`
 * are 500M, 1G, 1G, 1M; a bare `500B` is refused), converted to MiB (kibibytes round up).
 * 0 is allowed (Slurm: "all memory of the node").
 */
import { err, ok, type Result } from "../lib/result.ts";

/** Largest MiB value a JobSpec memory field (uint32) can carry. */
export const SIZE_MIB_MAX = 0xfffffffe;

const UNIT_KIB: Record<string, number> = { k: 1, m: 1024, g: 1024 * 1024, t: 1024 * 1024 * 1024 };

/** Parse a size into MiB; `defaultUnit` applies when no unit letter is given. */
export function parseSizeMiB(text: string, defaultUnit: "K" | "M" | "G" | "T" = "M"): Result<number> {
  const m = /^([0-9]+)(?:([kKmMgGtT])[bB]?)?$/.exec(text);
  if (m === null) return err("BadSize", `Invalid size specification: ${text}`);
  const unit = (m[2] === undefined ? defaultUnit : (m[2] as string)).toLowerCase();
  const kib = Number(m[1]) * (UNIT_KIB[unit] as number);
  const mib = Math.ceil(kib / 1024);
  if (!Number.isSafeInteger(kib) || mib > SIZE_MIB_MAX) return err("BadSize", `Invalid size specification: ${text}`);
  return ok(mib);
}
