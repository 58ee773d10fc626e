#!/bin/bash
# corpus: bwHPC hybrid example (code-index excerpt; the index does not name its repository) (as found)
#SBATCH --ntasks=4
#SBATCH --cpus-per-task=10
#SBATCH --time=01:00:00
#SBATCH --mem=30gb
#SBATCH --export=ALL,MPI_MODULE=mpi/openmpi/3.1,EXECUTABLE=./ompi_omp_program
#SBATCH --output="parprog_hybrid_%j.out"

module load ${MPI_MODULE}
