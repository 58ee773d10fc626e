#!/bin/bash
# corpus: Princeton Research Computing array example (code-index excerpt; the index does not name its repository) (as found)
#SBATCH --job-name=job_array     # create a short name for your job
#SBATCH --nodes=1                # node count
#SBATCH --ntasks=1               # total number of tasks across all nodes per job
#SBATCH --cpus-per-task=1        # cpu-cores per task per job (equal to $SLURM_CPUS_PER_TASK)
#SBATCH --time=00:01:00          # total run time limit (HH:MM:SS) per job
#SBATCH --output=slurm-%A.%a.out # stdout file
#SBATCH --error=slurm-%A.%a.err  # stderr file
#SBATCH --array=0-4              # job array with index values 0, 1, 2, 3, 4

echo "My SLURM_ARRAY_JOB_ID is $SLURM_ARRAY_JOB_ID."
