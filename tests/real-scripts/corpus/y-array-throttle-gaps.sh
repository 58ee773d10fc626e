#!/bin/bash
# corpus: pattern of a university array job (code-index search "array %10 open-mode", julnow/cr718 style); paraphrased; partition -> debug

#SBATCH --partition=debug

#SBATCH --job-name=SM-ARR

#SBATCH --array=1-10%10

#SBATCH --cpus-per-task=1

#SBATCH --mem=2G

#SBATCH --time=48:00:00

#SBATCH --output=R4-%A.%a.out # stdout file

#SBATCH --error=R4-%A.%a.err  # stderr file

module purge
srun ./out
