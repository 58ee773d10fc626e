#!/usr/bin/env bash
# corpus: NCSA Delta mnist example (code-index excerpt; the index does not name its repository); neutralised: partition/account/constraint placeholders -> gpu, srpa, removed
#SBATCH --job-name="mnist_gpu"
#SBATCH --partition=gpu
#SBATCH --mem=2G
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=1
#SBATCH --gpus-per-node=1
#SBATCH --gpu-bind=closest  # select a cpu close to gpu on pci bus topology
#SBATCH --account=srpa  # match to an "Account" returned by the 'accounts' command
#SBATCH --exclusive  # dedicated node for this job
#SBATCH --no-requeue
#SBATCH --time=01:00:00
#SBATCH --error mnist_gpu.slurm-%j.err
#SBATCH --output mnist_gpu.slurm-%j.out

module reset
