#!/bin/env bash
# corpus: pattern of an IDRIS-style CPU job (code-index excerpt: SIGUSR1 spelled with SIG, account with @, nomultithread); paraphrased, sizes scaled to the oracle
#SBATCH --job-name=toy
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=2
#SBATCH --mem-per-cpu=1G
#SBATCH --hint=nomultithread
#SBATCH --time=2:00:00
#SBATCH --output=run_%j.out
#SBATCH --error=run_%j.out
#SBATCH --signal=B:SIGUSR1@120
#SBATCH -A qxo@cpu

trap 'exit 2' SIGUSR1
python benchmark.py &
wait
