#!/bin/bash
# corpus: self-resubmitting job (code-index excerpt; the index does not name its repository); neutralised: partition cpu -> debug

#SBATCH --mem=1G
#SBATCH --time 00:00:03
#SBATCH -c 16 
#SBATCH --output=slurm-%j.log
#SBATCH --partition=debug

# send this batch script a SIGUSR1 60 seconds
# before we hit our time limit
#SBATCH --signal=B:USR1@60

for i in {1..100}; do echo "$i"; sleep 3; done
