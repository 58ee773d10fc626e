#!/bin/bash
# corpus: pattern of a UF HiPerGator MPI example (code-index excerpt: tasks per socket, cyclic:cyclic distribution, mail END,FAIL); paraphrased, sizes scaled to the oracle's 4-CPU nodes
#SBATCH --job-name=mpi_job_test      # Job name
#SBATCH --mail-type=END,FAIL         # Mail events
#SBATCH --ntasks=4                   # Number of MPI tasks
#SBATCH --cpus-per-task=1            # Cores per MPI task
#SBATCH --nodes=2                    # Maximum number of nodes
#SBATCH --ntasks-per-node=2          # Maximum tasks on each node
#SBATCH --ntasks-per-socket=1        # Maximum tasks on each socket
#SBATCH --distribution=cyclic:cyclic # Distribute tasks cyclically
#SBATCH --mem-per-cpu=600mb
#SBATCH --time=00:05:00

srun --mpi=pmix_v3 ./mpi_hello
