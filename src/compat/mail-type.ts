/**
 * @module compat/mail-type
 * --mail-type as Slurm 22.05 keeps and prints it: a set of flags shown in Slurm's own order
 * (not as typed), ALL standing for the usual events, NONE for no mail at all.
 */

/** Slurm's print order of the mail flags. */
const ORDER = ["INVALID_DEPEND", "BEGIN", "END", "FAIL", "REQUEUE", "STAGE_OUT",
  "TIME_LIMIT", "TIME_LIMIT_90", "TIME_LIMIT_80", "TIME_LIMIT_50", "ARRAY_TASKS"];

/** What ALL sets. */
const ALL = ["INVALID_DEPEND", "BEGIN", "END", "FAIL", "REQUEUE", "STAGE_OUT"];

/** The flags of a checked --mail-type value ("END,FAIL", "ALL", "NONE") in Slurm's order; "" for none. */
export function mailTypeText(value: string): string {
  const set = new Set<string>();
  for (const t of value.toUpperCase().split(",")) {
    if (t === "NONE") set.clear();
    else for (const f of t === "ALL" ? ALL : [t]) set.add(f);
  }
  return ORDER.filter((f) => set.has(f)).join(",");
}
