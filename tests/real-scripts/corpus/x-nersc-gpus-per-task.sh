#!/bin/bash -l
# corpus: NERSC training script (code-index excerpt; the index does not name its repository); neutralised: feature -C gpu removed
#SBATCH -A m3363
#SBATCH --time=2:00:00
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=4
#SBATCH --gpus-per-task=1
#SBATCH --cpus-per-task=10
#SBATCH -o sout/%j.out

echo "hello"
srun python main.py
