#!/bin/bash
# corpus: Savio simulation job (code-index excerpt; the index does not name its repository); neutralised: partition savio3_htc -> debug, qos savio_debug -> normal, chdir /global/scratch/... -> /tmp

# Remember:
# Submit via: sbatch ...

#SBATCH -J Sim

#SBATCH --account=fc_cosi
#SBATCH --partition=debug
#SBATCH --qos=normal

#SBATCH --chdir=/tmp

#SBATCH -t 00:10:00

#SBATCH -N 1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1

#SBATCH --signal=2@60

#SBATCH --mail-user=ethan.chen@berkeley.edu
#SBATCH --mail-type=ALL


echo "Starting submit on host ${HOST}..."

wait
