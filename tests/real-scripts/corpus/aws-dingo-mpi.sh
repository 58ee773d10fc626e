#!/bin/bash
# corpus: ICRAR/aws-dingo aws/parallel-cluster/slurm_test02.sh (as found)
# Number of MPI tasks
#SBATCH -n 4
#
# Number of tasks per node
#SBATCH --tasks-per-node=2

module load mpi/openmpi-x86_64

srun hello.mpi
