#!/bin/bash
# corpus: DGX training script (code-index excerpt; the index does not name its repository); neutralised: partition DGX -> gpu
#SBATCH -p gpu
#SBATCH --job-name=pytorch_distributed
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=16
#SBATCH --mem=350GB
#SBATCH --gres=gpu:1
#SBATCH --time=4:00:00

python3 src/baseline.py
