#!/bin/bash
# corpus: pattern of a Vector-institute-style requeueing job (code-index excerpt: open-mode append, qos given with a space, array, signal); paraphrased
#SBATCH --open-mode=append
#SBATCH -N 1
#SBATCH -n 1
#SBATCH --cpus-per-task=2
#SBATCH --time=8:00:00
#SBATCH --mem=1GB
#SBATCH --job-name=fe1
#SBATCH --output=o%j.out
#SBATCH --error=o%j.err
#SBATCH --qos m2
#SBATCH --array=1-5
#SBATCH --signal=B:USR1@60

handler() { sbatch "${BASH_SOURCE[0]}"; }
trap handler SIGUSR1
python main.py
