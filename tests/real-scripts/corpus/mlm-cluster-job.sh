#!/bin/bash
# corpus: wzbillings/mlm-cluster-test job.sh; neutralised: partition batch -> debug
#SBATCH --partition=debug
#SBATCH --job-name=test
#SBATCH --ntasks=1
#SBATCH --time=4:00:00
#SBATCH --mem=10G
#SBATCH --cpus-per-task=4
