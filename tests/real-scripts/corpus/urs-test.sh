#! /bin/bash
# corpus: 777pomingzi/URS test.sh; neutralised: partition rtx2080 -> gpu
#SBATCH -p gpu
#SBATCH -N 1
#SBATCH --gres=gpu:2

python -m torch.distributed.launch  --nproc_per_node=2 main.py
