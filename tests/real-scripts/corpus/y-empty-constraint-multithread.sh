#!/bin/bash
#
# corpus: pattern of a LUMI training job (code-index excerpt: an empty --constraint= with trailing blanks, exclusive, hint=multithread); paraphrased; partition -> debug, account and reservation dropped
# GENERAL OPTIONS
#SBATCH --partition debug
#SBATCH --job-name=check                
#SBATCH --constraint=                   
#SBATCH --time=00:10:00                 # Job time limit (HH:MM:SS)
#SBATCH --output=run_%x-%j.out          # Standard output file name-jobid
#SBATCH --exclusive                     # We don't share nodes with others
#SBATCH --nodes=3 
#SBATCH --hint=multithread

srun ./xthi | sort -k4n -k6n
