#!/bin/bash
# corpus: torch.distributed launcher (code-index excerpt; the index does not name its repository); neutralised: partition admin -> gpu, node agi1 -> n4

#SBATCH --job-name=test
#SBATCH --nodes=1
#SBATCH --gres=gpu:8
#SBATCH -p gpu
#SBATCH -w n4
#SBATCH --cpus-per-gpu=4
#SBATCH --mem-per-gpu=20G
#SBATCH --time=14-0
#SBATCH -o %N_%x_%j.out
#SBATCH -e %N_%x_%j.err

python -m torch.distributed.launch --nproc_per_node=8 --use_env main.py
