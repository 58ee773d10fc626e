/**
 * @module compat/slurm-release
 * The Slurm release Spur follows: the one whose slurmrestd serves the data_parser
 * versions Spur serves (v0.0.42-45: Slurm 26.05, shared/slurm-surface/rest-api.md).
 * `-V/--version` of every Slurm-named command prints it the way Slurm's
 * print_slurm_version does ("<package> <version>"); tools such as submitit and
 * ReFrame parse the number to decide which options exist. The oracle prints
 * "slurm-wlm 22.05.8" only because Debian renames the package; upstream says
 * "slurm". `spur version` keeps Spur's own version (src/version.ts).
 */
export const SLURM_RELEASE = { major: "26", minor: "05", micro: "0" } as const;

/** "26.05.0" */
export const SLURM_RELEASE_TEXT = `${SLURM_RELEASE.major}.${SLURM_RELEASE.minor}.${SLURM_RELEASE.micro}`;

/** The `--version` line of sbatch, squeue, scontrol ... */
export const SLURM_VERSION_LINE = `slurm ${SLURM_RELEASE_TEXT}`;
