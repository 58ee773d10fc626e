#!/usr/bin/bash
# corpus: pattern of a Flatiron training job (code-index excerpt: days-hours time "0-12", mem-per-gpu, gpus-per-node, 2 nodes); paraphrased; constraint dropped, partition -> gpu, sizes scaled

#SBATCH --job-name=trainso
#SBATCH --partition=gpu
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=4
#SBATCH --gpus-per-node=4
#SBATCH --cpus-per-task=1
#SBATCH --mem-per-gpu=900M
#SBATCH --time=0-12

module purge
srun --cpu-bind=cores python run_train.py
