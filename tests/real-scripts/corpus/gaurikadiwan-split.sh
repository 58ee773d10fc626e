#!/bin/bash
# corpus: gaurikadiwan/pytorch slurm.sh (as found: a bare #SBATCH line, then --mem on a line of its own)
#SBATCH --job-name=test
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=16
#SBATCH
--mem=32G
#SBATCH --partition=gpu
#SBATCH --gres=gpu:1
