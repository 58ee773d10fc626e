#!/bin/bash
# corpus: EPFL example (code-index excerpt; the index does not name its repository) (as found, the mail-user value with its leading space)
# My email address
#SBATCH --mail-user= orfeas.liossatos@epfl.ch

# How much time my job must run (min 1 minute)
#SBATCH --time=00:01:00

# How much memory (RAM) my job will use (min 512MB)
#SBATCH --mem=512MB

# How many nodes I'm going to use
#SBATCH --nodes=1

# How many cores/cpu must be reserved for my job.
#SBATCH --cpus-per-task=1
