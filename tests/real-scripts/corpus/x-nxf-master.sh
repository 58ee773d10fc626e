#!/bin/bash -l 
# corpus: Nextflow master job (Pawsey) (code-index excerpt; the index does not name its repository); neutralised: account XXXX -> srpa, partition workq -> debug
#SBATCH --job-name=nxf-master 
#SBATCH --account=srpa 
#SBATCH --partition=debug 
#SBATCH --time=1-00:00:00
#SBATCH --no-requeue 
#SBATCH --export=none 
#SBATCH --nodes=1

unset SBATCH_EXPORT 
nextflow run nanopore_nextflow.nf -profile zeus -name nxf-${SLURM_JOB_ID} -resume --with-report
