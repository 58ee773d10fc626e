/**
 * @module lib/num-unit
 * Slurm's convert_num_unit with its exact flag (what scontrol, squeue, sacct and TRES strings
 * use): divide by 1024 while the value is at least 1024 and a multiple of 512, then print it
 * whole, or with two decimals when the last division left a half. Oracle 22.05: 1536M is
 * "1.50G", 729600M "712.50G", 3072M "3G", 15200M and 8000M stay in M.
 */

const SUFFIXES = ["", "K", "M", "G", "T", "P", "E"] as const;

/** `unit` is the starting suffix index (2 = "M"). */
export function exactUnits(value: number, unit = 0): string {
  if (value === 0) return "0";
  let v = value;
  let u = unit;
  while (v >= 1024 && Math.floor(v) % 512 === 0 && u < SUFFIXES.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v === Math.floor(v) ? String(v) : v.toFixed(2)}${SUFFIXES[u] ?? ""}`;
}
