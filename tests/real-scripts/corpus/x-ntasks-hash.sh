#!/bin/bash
# corpus: MPI job (code-index excerpt; the index does not name its repository); neutralised: partition test -> debug (the value "1#128#512" kept as found)
#
##SBATCH --account=aricrowe
#SBATCH --partition=debug
#SBATCH --job-name=MPI_job
#SBATCH --output=log-%j.txt
#SBATCH --time=01:00:00
#SBATCH --ntasks=1#128#512
##SBATCH --ntasks-per-core=1
#SBATCH --mem-per-cpu=1GB
##SBATCH --chdir=./

mpirun -np $SLURM_NTASKS $@
