#!/bin/bash
# corpus: harvardinformatics/snpArcher run_scripts/run_fastq2bam.sh; neutralised: partition shared -> debug
#SBATCH -J sm
#SBATCH -o out
#SBATCH -e err
#SBATCH -p debug
#SBATCH -n 1
#SBATCH -t 9000
#SBATCH --mem=10000

snakemake --snakefile workflow/Snakefile_fastq2bam --profile profiles/slurm
