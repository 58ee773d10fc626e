/**
 * @module compat/options/script-command
 * The Command= a batch job shows for its script file (oracle 22.05, scontrol show job and
 * squeue %o): the path as typed when it starts with "/" or "." (`./run.sh`, `../x/run.sh`);
 * otherwise the first `DIR/path` that exists, DIR being the directory the script is looked up
 * from (the command line's --chdir, made absolute but not tidied, or the current directory) and
 * then each PATH entry (`-D s job.sh` with no s/job.sh finds a job.sh on PATH). None existing leaves the path as typed (`sbatch -D sub job.sh` with no
 * sub/job.sh shows Command=job.sh); found paths are joined, not tidied (`sub/../job.sh` is
 * <cwd>/sub/../job.sh). A --chdir from an #SBATCH line does not count. Pure: the shell says
 * which candidates exist.
 */

/** Where the script is looked up: the command line's --chdir (relative to cwd) or cwd itself. */
export function lookupDir(cwd: string, chdir: string | undefined): string {
  if (chdir === undefined) return cwd;
  return chdir.startsWith("/") ? chdir : `${cwd}/${chdir}`;
}

/** Candidate Command= values in order; empty when the path is shown as typed whatever exists. */
export function commandCandidates(path: string, dir: string, pathVar: string | undefined): string[] {
  if (path.startsWith("/") || path.startsWith(".")) return [];
  const dirs = (pathVar ?? "").split(":").filter((d) => d !== "");
  // a PATH entry starting with "." is taken from the lookup directory
  return [dir, ...dirs.map((d) => (d.startsWith(".") ? `${dir}/${d}` : d))].map((d) => `${d}/${path}`);
}
