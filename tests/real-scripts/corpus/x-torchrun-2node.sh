#!/bin/bash
# corpus: torchrun launcher (code-index excerpt; the index does not name its repository); neutralised: partition rtx6000 -> gpu, nodelist gpu[170-179] -> n[3-4]

#SBATCH --job-name=GPU-torchrun
#SBATCH --mem=10G
#SBATCH --partition=gpu
#SBATCH --qos=normal
#SBATCH --output=logs/%x.%j.log
#SBATCH --nodes=2
#SBATCH --gres=gpu:2
#SBATCH --ntasks-per-node=2
#SBATCH --cpus-per-task=8
#SBATCH --nodelist=n[3-4]

export NCCL_DEBUG=INFO
