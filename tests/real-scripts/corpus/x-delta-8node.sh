#!/bin/bash
# corpus: NCSA Delta multi-node job (code-index excerpt; the index does not name its repository); neutralised: partition gpuA40x4 -> gpu

#SBATCH --job-name=llmslurm
#SBATCH --partition=gpu
#SBATCH --account=bbug-delta-gpu
#SBATCH --time=02:00:00
#SBATCH --nodes=8
#SBATCH --ntasks=8
#SBATCH --gpus-per-node=2
#SBATCH --mem=0

export NUM_GPUS_PER_NODE=1
