/**
 * @module ctld/submit-limits
 * Size limits on a job submission, checked at the controller's door before anything is
 * logged (so a refused request costs nothing and changes nothing). The table follows
 * slurmctld 22.05's checks of a job description: each text field has a maximum length,
 * and the batch script has SchedulerParameters=max_script_size (default 4 MB). Slurm
 * refuses all of them with ESLURM_PATHNAME_TOO_LONG, whose text is checked against the
 * oracle (sbatch with a 5 MB script, a 1025-character -J or --comment, a 4100-character
 * -o: "Pathname of a file, directory or other parameter too long"; 1024 characters pass).
 * One more check is Spur's own: a name or path that arrived with bytes that are not UTF-8
 * (decoded as U+FFFD on the way) is refused, so `-o` never lands on a different file.
 */
import type { JobSpecP } from "../sched/model/types.ts";
import { parseSchedulerParameters } from "../sched/plan/sched-config.ts";

/** ESLURM_PATHNAME_TOO_LONG, as Slurm prints it. */
export const TOO_LONG_MESSAGE = "Pathname of a file, directory or other parameter too long";
/** Spur's own (Slurm takes any bytes): a path that was not valid UTF-8 cannot be kept as typed. */
export const NOT_UTF8_MESSAGE = "Invalid character in a name or path: it is not valid UTF-8";
/** Slurm's default max_script_size (SchedulerParameters), in bytes. */
export const MAX_SCRIPT_BYTES_DEFAULT = 4 * 1024 * 1024;
/** Slurm's hard cap on max_script_size: 512 MB. */
const MAX_SCRIPT_BYTES_CAP = 512 * 1024 * 1024;

const MAXPATHLEN = 4096;
/** Field -> longest value slurmctld accepts (characters). */
export const FIELD_LENGTH_MAX: Readonly<Record<string, number>> = {
  name: 1024, comment: 1024, account: 1024, partition: 1024, qos: 1024, reservation: 1024, wckey: 1024,
  licenses: 1024, mailUser: 1024, constraint: 1024, dependency: 1024 * 128,
  workDir: MAXPATHLEN, stdOut: MAXPATHLEN, stdErr: MAXPATHLEN, stdIn: MAXPATHLEN,
};
/** Fields that name a file or a job: refused when they carry U+FFFD (bytes that were not UTF-8). */
const MUST_BE_EXACT = ["name", "workDir", "stdOut", "stdErr", "stdIn"] as const;

export interface SubmitLimits {
  maxScriptBytes: number;
}

/** SchedulerParameters=max_script_size=N (bytes; Slurm caps it at 512 MB). */
export function submitLimitsFrom(schedulerParameters: string): SubmitLimits {
  const v = Number(parseSchedulerParameters(schedulerParameters).get("max_script_size"));
  const maxScriptBytes = Number.isInteger(v) && v > 0 ? Math.min(v, MAX_SCRIPT_BYTES_CAP) : MAX_SCRIPT_BYTES_DEFAULT;
  return { maxScriptBytes };
}

/** The reason `spec` is refused, or undefined when it is within every limit. */
export function checkSubmitLimits(spec: JobSpecP, limits: SubmitLimits): string | undefined {
  if (Buffer.byteLength(spec.script ?? "", "utf8") > limits.maxScriptBytes) return TOO_LONG_MESSAGE;
  const fields = spec as unknown as Record<string, unknown>;
  for (const [field, max] of Object.entries(FIELD_LENGTH_MAX)) {
    const value = fields[field];
    if (typeof value === "string" && value.length > max) return TOO_LONG_MESSAGE;
  }
  for (const field of MUST_BE_EXACT) {
    const value = fields[field];
    if (typeof value === "string" && value.includes("\uFFFD")) return NOT_UTF8_MESSAGE;
  }
  return undefined;
}
