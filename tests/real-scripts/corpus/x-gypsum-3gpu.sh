#!/bin/bash
# corpus: Unity cluster torchrun script (code-index excerpt; the index does not name its repository); neutralised: partition gypsum-rtx8000 -> gpu
#SBATCH -G 3                  # Number of GPUs
#SBATCH --nodes=1             # Always set to 1!
#SBATCH --gres=gpu:3          # This needs to match num GPUs. default 8
#SBATCH --ntasks-per-node=3   # This needs to match num GPUs. default 8
#SBATCH --mem=80000           # Requested Memory
#SBATCH -p gpu     # Partition
#SBATCH -t 07-00              # Job time limit
#SBATCH -o slurm-%j.out       # %j = job ID

torchrun --nproc_per_node 3 run_distributed.py --exp_name test
