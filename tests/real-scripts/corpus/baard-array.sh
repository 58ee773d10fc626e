#!/bin/bash -e
# corpus: changx03/baard_exp2 slurm/test_array.sh (as found)
#SBATCH --job-name=test_array
#SBATCH --output=log/test_array_%a.out
#SBATCH --time=00:01:00
#SBATCH --mem=1G
#SBATCH --array=0-4

echo $SLURM_ARRAY_TASK_ID
