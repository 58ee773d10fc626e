/**
 * @module main-names
 * The Slurm-style names the one binary answers to (besides `spur`), shared by
 * main.ts and `spur install-links` without importing main.ts itself.
 */
export const LINK_NAMES = ["spurctld", "spurd", "sbatch", "srun", "salloc", "squeue", "scancel", "sinfo", "sacct", "scontrol", "sprio", "sdiag", "sacctmgr", "sshare"];
