#!/bin/bash --login
# corpus: peiyong-addwater/HamEmbedding draft-code/qiskit-draft-code/fashion-mnist-single-qubit-conv/fashion-mnist-qiskit.sh (as found)
#SBATCH --job-name=testDaskJobQueue
#SBATCH --nodes=1
#SBATCH --time=03:30:00
#SBATCH --account=pawsey0419
#SBATCH --export=NONE
#SBATCH --mem=32G

module load hpc-python-collection/2022.11-py3.9.15

srun -N 1 -n 1 -c 128 python try-dask-jobqueue-pawsey.py
