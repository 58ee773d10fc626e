#!/bin/bash
# corpus: pattern of a LUMI-G example job (code-index excerpt: output o%j with a comment, lowercase mail type "all", gpus-per-node); paraphrased; partition -> gpu, account and mail user dropped
#SBATCH --job-name=exampleJob
#SBATCH --output=examplejob.o%j # Name of stdout output file
#SBATCH --error=examplejob.e%j  # Name of stderr error file
#SBATCH --nodes=1               # Total number of nodes 
#SBATCH --ntasks-per-node=2
#SBATCH --gpus-per-node=2       # one GPU per MPI rank
#SBATCH --cpus-per-task=2       # 2 threads per rank
#SBATCH --time=00:15:00
#SBATCH --mail-type=all         # mail at begin and end of job
#SBATCH --mem=2G
#SBATCH --partition=gpu

srun ./myapp
