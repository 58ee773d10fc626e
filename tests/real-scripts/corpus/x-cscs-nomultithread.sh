#!/bin/bash -l
# corpus: CSCS job (code-index excerpt; the index does not name its repository); neutralised: partition normal -> debug, account "project" -> srpa, constraint gpu removed
#SBATCH --job-name="job_name"
#SBATCH --account="srpa"
#SBATCH --time=01:00:00
#SBATCH --nodes=1
#SBATCH --ntasks-per-core=1
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=12
#SBATCH --partition=debug
#SBATCH --hint=nomultithread

export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
srun ./experiment_openmp_k
