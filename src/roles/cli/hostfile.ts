/**
 * @module roles/cli/hostfile
 * The one file read srun and salloc do for SLURM_HOSTFILE (sbatch reads through its CliPort):
 * the text, or the system's reason in Slurm's words; the rules are compat/job-hostfile's.
 */
import { readFileSync } from "node:fs";
import { expandHostlist } from "../../compat/hostlist.ts";

export function readHostfile(path: string): { text: string | undefined; why: string } {
  try {
    return { text: readFileSync(path, "utf8"), why: "" };
  } catch (e) {
    return { text: undefined, why: (e as { code?: string }).code === "EACCES" ? "Permission denied" : "No such file or directory" };
  }
}

/** One hostlist expression into names, undefined when it does not parse. */
export function expandEntry(expr: string): string[] | undefined {
  const x = expandHostlist(expr);
  return x.ok ? x.value : undefined;
}
