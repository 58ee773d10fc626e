/**
 * @module format/scontrol-record
 * How `scontrol show` lays out one record: its lines are joined with a
 * newline and three spaces, or with one space under -o/--oneliner. Job
 * records end with one more separator (the "   " line of goldens 059/063,
 * the trailing blank of 065); every record then ends with "\n", plus an
 * empty line between records when not one-lined.
 */

export type RecordEnd = "separator" | "plain";

/** Join the lines of one record the way Slurm's slurm_sprint_* does. */
export function formatRecord(lines: readonly string[], oneLiner: boolean, end: RecordEnd): string {
  const sep = oneLiner ? " " : "\n   ";
  const body = lines.join(sep) + (end === "separator" ? sep : "");
  return oneLiner ? `${body}\n` : `${body}\n\n`;
}

/** "(null)" for a string Slurm leaves unset. */
export const orNull = (text: string): string => (text === "" ? "(null)" : text);

/** "YES"/"NO" as scontrol prints flags. */
export const yesNo = (flag: boolean): string => (flag ? "YES" : "NO");
