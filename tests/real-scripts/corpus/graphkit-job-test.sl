#!/bin/bash
# corpus: jajupmochi/graphkit-learn notebooks/else/job_test.sl; neutralised: partition long -> debug
#
#SBATCH --job-name=test
#SBATCH --output=res.txt
#SBATCH --partition=debug
#
#SBATCH --ntasks=1
#SBATCH --time=10:00
#SBATCH --mem-per-cpu=100

srun hostname
srun sleep 60
