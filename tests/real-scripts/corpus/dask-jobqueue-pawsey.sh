#!/bin/bash --login
# corpus: peiyong-addwater/HamEmbedding draft-code/try-dask-jobqueue/test-dask-jobqueue.sh (as found)
#SBATCH --job-name=testDaskJobQueue
#SBATCH --nodes=1
#SBATCH --time=03:30:00
#SBATCH --account=pawsey0419
#SBATCH --export=NONE
#SBATCH --mem=16G

module load hpc-python-collection/2022.11-py3.9.15

python try-dask-jobqueue-pawsey.py
