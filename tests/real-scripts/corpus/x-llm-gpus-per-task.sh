#!/bin/bash -l
# corpus: LLM SFT launcher (code-index excerpt; the index does not name its repository); neutralised: partition llm -> gpu

# SLURM SUBMIT SCRIPT
#SBATCH -p gpu
#SBATCH -N 2
#SBATCH -n 8
#SBATCH --ntasks-per-node=4     # This needs to match Fabric(devices=...)
#SBATCH --gpus-per-task=1            # Request N GPUs per machine
#SBATCH --mem=0
#SBATCH --time=0-02:00:00

srun python -W ignore train.py --config ./configs/13B_sft.py
