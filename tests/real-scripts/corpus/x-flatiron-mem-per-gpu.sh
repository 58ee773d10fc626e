#!/usr/bin/bash
# corpus: Flatiron training job (code-index excerpt; the index does not name its repository); neutralised: constraint a100-80gb,ib removed

#SBATCH --partition=gpu
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=1
#SBATCH --cpus-per-task=8
#SBATCH --mem-per-gpu=125G
#SBATCH --time=0-3

module purge
srun --cpu-bind=cores  python train.py
