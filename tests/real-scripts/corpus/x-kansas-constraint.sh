#!/bin/bash
# corpus: K-State Beocat sample (code-index excerpt; the index does not name its repository) (as found: feature elves, neither site has it)

#SBATCH --mem-per-cpu=2G

## Max time 1 minute
#SBATCH --time=0:01:00

#SBATCH --ntasks=1

#SBATCH --constraint=elves

## Job title
#SBATCH -J SGTYES

## Send email for all updates
#SBATCH --mail-type=ALL

srun p4_omp
