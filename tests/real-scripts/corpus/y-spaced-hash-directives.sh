#!/bin/bash
# corpus: pattern of an ASU Sol array script (code-index excerpt: "# SBATCH" lines that Slurm ignores, days-hours time, -o/-e with %A_%a); paraphrased; partition -> debug, qos line dropped

#SBATCH --job-name=array
# SBATCH --array=1-300 #number of total jobs to spawn
#SBATCH -t 0-00:10:00 #upper bound time limit for job to finish
#SBATCH -p debug
# SBATCH --ntasks=10 #number of concurrently running jobs
#SBATCH -o out_err/slurm.%A_%a.out
#SBATCH -e out_err/slurm.%A_%a.err
#SBATCH --mail-type=ALL

./run_simg.sh "$1"
