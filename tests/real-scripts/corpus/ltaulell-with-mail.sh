#!/bin/bash
# corpus: ltaulell/submission_scripts Slurm/with_mail.sh; neutralised: partition E5 -> debug
#SBATCH --job-name=test
#SBATCH --partition=debug
#SBATCH --cpus-per-task=1
#SBATCH --ntasks=1
#SBATCH --time=0-00:10:00           # day-hours:minutes:seconds
#
#SBATCH --mail-type=BEGIN,END,FAIL
# please *NEVER* use the 'ALL' flag, as it will overload mail servers
#SBATCH --mail-user=user@example.com

env > env-E5.txt
