#!/bin/bash
# corpus: course MPI benchmark job (code-index excerpt; the index does not name its repository); neutralised: partition lva -> debug

# Execute job in the partition "lva" unless you have special requirements.
#SBATCH --partition=debug
# Name your job to be able to identify it later
#SBATCH --job-name test
# Redirect output stream to this file
#SBATCH --output=output.log
#SBATCH --ntasks=96
# Maximum number of tasks (=processes) to start per node
#SBATCH --ntasks-per-node=12
# Enforce exclusive node allocation, do not share with other jobs
#SBATCH --exclusive

module purge
