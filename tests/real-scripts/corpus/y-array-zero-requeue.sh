#!/bin/bash
# corpus: pattern of cameronthieme/LeslieProject ExpandedRunner.sh (single-task array, requeue, export ALL); paraphrased; partition -> debug

#SBATCH --job-name=run_job_array   # Job name
#SBATCH --output=OutFiles/output_%j.out  # STDOUT output file
#SBATCH --error=OutFiles/output_%j.err   # STDERR output file (optional)
#SBATCH --partition=debug        # Partition (job queue)
#SBATCH --nodes=1                  # Number of nodes
#SBATCH --ntasks=1                 # Total number of tasks across all nodes
#SBATCH --cpus-per-task=1          # CPUs per task
#SBATCH --mem=1999                  # MB
#SBATCH --array=0              # one task
#SBATCH --time=71:00:00            # run time limit
#SBATCH --requeue                  # requeue if preempted
#SBATCH --export=ALL               # export the environment

srun python domain_expanded.py ${SLURM_ARRAY_TASK_ID}
