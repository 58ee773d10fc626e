#!/bin/bash
# corpus: pattern of an LANL-style study template (code-index excerpt: ntasks-per-gpu, gpu-bind closest, gres-flags enforce-binding, mem-bind local); paraphrased; partition -> gpu, sizes scaled
#SBATCH --job-name=mnist_study1
#SBATCH --partition=gpu
#SBATCH --gres=gpu:1
#SBATCH --ntasks-per-gpu=2
#SBATCH --gpu-bind=closest
#SBATCH --gres-flags=enforce-binding
#SBATCH --mem-bind=local
#SBATCH --mem=2G
#SBATCH --time=02:00:00
#SBATCH --output=study1_epoch1.out
#SBATCH --error=study1_epoch1.err

python train.py
