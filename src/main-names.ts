/**
 * @module main-names
 * The Slurm-style names the one binary answers to (besides `spur`), shared by
 * main.ts and `spur install-links` without importing main.ts itself.
 */
export const LINK_NAMES = ["spurctld", "spurd", "spurrestd", "sbatch", "srun", "salloc", "squeue", "scancel", "sinfo", "sacct", "scontrol", "sstat", "sprio", "sdiag", "sacctmgr", "sshare", "seff", "sreport", "sgather", "strigger", "sbcast", "sattach"];
