#! /bin/bash
# corpus: pattern of a FAIR-style training launcher (code-index excerpt: comment in quotes, array 0-0%1, signal to the batch shell); paraphrased; partition -> gpu, GPUs and memory scaled to the oracle
#SBATCH --output=logs/slurm-%A_%a.out
#SBATCH --error=logs/slurm-%A_%a.err
#SBATCH --partition=gpu
#SBATCH --comment="<ECCV deadline>"
#SBATCH --nodes=1
#SBATCH --array=0-0%1
#SBATCH --ntasks-per-node=2
#SBATCH --gres=gpu:8
#SBATCH --mem=3g
#SBATCH --cpus-per-task=2
#SBATCH --signal=B:USR1@60 #Signal is sent to batch script itself

trap 'scontrol requeue $SLURM_ARRAY_JOB_ID' USR1
srun python train.py &
wait
