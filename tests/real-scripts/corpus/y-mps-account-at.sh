#!/bin/bash
# corpus: pattern of a Jean-Zay GROMACS job (code-index excerpt: trailing blanks after values, tasks-per-node, account with @, exclusive, nomultithread); paraphrased; constraint and qos dropped, partition -> gpu, sizes scaled

#SBATCH --time=20:00:00 
#SBATCH --nodes=2
#SBATCH --tasks-per-node=2
#SBATCH --cpus-per-task=2
#SBATCH --gres=gpu:4
#SBATCH --partition=gpu
#SBATCH --account=ehm@v100
#SBATCH --output=out.%j 
#SBATCH --error=err.%j 
#SBATCH --job-name=test 
#SBATCH --exclusive
#SBATCH --hint=nomultithread    # 1 MPI process per physical core

module purge
srun --cpu-bind=verbose -n 4 ./gpu_bind
