#! /bin/bash
# corpus: pattern of a FAIR neural-rendering launcher (code-index excerpt: ##SBATCH disabled lines, time in minutes, comment in quotes); paraphrased; partition -> gpu, constraint dropped, sizes scaled
#SBATCH --output=logs/slurm-%A.out
#SBATCH --error=logs/slurm-%A.err
#SBATCH --job-name=neural_rendering_ms
#SBATCH --partition=gpu
#SBATCH --comment="opensource code neurips submission"
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gres=gpu:8
#SBATCH --mem=480
#SBATCH --cpus-per-task=4
##SBATCH --signal=B:USR1@60 #Signal is sent to batch script itself
##SBATCH --open-mode=append
#SBATCH --time=4320

srun python train.py
