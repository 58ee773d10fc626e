#! /bin/bash
# corpus: pattern of an Oxford ARC array job (code-index excerpt: output given with a space, mail types, a directive after blank lines and a comment block); paraphrased; partition -> debug, memory scaled
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=4
#SBATCH --job-name=4yp_19
#SBATCH --time=12:00:00
#SBATCH --partition=debug
#SBATCH --output ./reports/%A-%a.out # STDOUT
#SBATCH --array=0-2
#SBATCH --mail-type=BEGIN,END
#SBATCH --mem=3G

# the signal directive below comes after a comment, still before the first command
#SBATCH --signal=B:TERM@300 # SIGTERM 5 minutes before the end
                        # a continuation comment



export WORKING_DIR=$HOME/4yp
python run.py
