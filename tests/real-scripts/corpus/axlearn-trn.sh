#!/bin/bash
# corpus: apple/axlearn run_trn.sh (as found)
#SBATCH --output=slurm-%x-%j.out
#SBATCH --cpus-per-task 127
#SBATCH --exclusive
#SBATCH --nodes=4

srun  --kill-on-bad-exit=1  run_trainer.sh
