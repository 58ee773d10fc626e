#!/bin/bash
# corpus: Tulane Cypress MPI example (code-index excerpt; the index does not name its repository) (as found: gres mic:0, a GRES neither site has)
#SBATCH --qos=normal            # Quality of Service
#SBATCH --job-name=MPI          # Job Name
#SBATCH --time=01:00:00         # WallTime
#SBATCH --nodes=4               # Number of Nodes
#SBATCH --ntasks-per-node=1     # Number of tasks (MPI processes)
#SBATCH --cpus-per-task=1       # Number of processors per task OpenMP threads()
#SBATCH --gres=mic:0            # Number of Co-Processors
#SBATCH --mail-type=ALL
#SBATCH --mail-user=ttran25@tulane.edu
module load intel-psxe/2015-update1
