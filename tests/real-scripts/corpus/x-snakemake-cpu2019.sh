#!/bin/bash
# corpus: snakemake driver job (code-index excerpt; the index does not name its repository); neutralised: partition cpu2019 -> debug
#SBATCH -c 1
#SBATCH --mem=1000
#SBATCH -p debug
#SBATCH -t 3-00:00
#SBATCH -o snakemake.out
#SBATCH -e snakemake.err
#SBATCH --mail-type=END
#SBATCH --mail-user=mortimer@hsph.harvard.edu

mkdir -p logs/slurm
snakemake --profile slurm
