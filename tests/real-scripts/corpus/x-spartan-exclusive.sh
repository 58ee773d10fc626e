#!/bin/bash
# corpus: Spartan sample script (code-index excerpt; the index does not name its repository); neutralised: partition physical -> debug, qos standard -> normal

#SBATCH --job-name=sample-script
# maximum duration of the job, format hh:mm:ss
#SBATCH --time=00:00:60
# no other jobs using hardware
#SBATCH --exclusive
# total number of tasks (processes)
#SBATCH --ntasks=2
# number of nodes
#SBATCH --nodes=2
# multi-threaded -> 1 task per node; process-parallelism -> number cores per node
#SBATCH --tasks-per-node=1
# threads per process
#SBATCH --cpus-per-task=1
#SBATCH --partition=debug
#SBATCH --qos=normal

srun --ntasks=1 echo "Task 1"
