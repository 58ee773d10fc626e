#!/bin/bash
# corpus: csc-training/geocomputing python/puhti/dask/dask_example.sh; neutralised: account <project> -> srpa, partition test -> debug
#SBATCH --job-name=DaskTest
#SBATCH --account=srpa
#SBATCH --time=00:05:00
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=3
#SBATCH --mem-per-cpu=2G
#SBATCH --partition=debug

module load geoconda
srun python dask_example.py
