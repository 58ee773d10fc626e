#!/bin/bash
# corpus: heterogeneous job (code-index excerpt; the index does not name its repository); neutralised: partition drpq -> debug, nodes drp-srcf-cmp035/036 -> n1/n2

#SBATCH --partition=debug
#SBATCH --job-name parallel   
#SBATCH --output slurm-%j.out   
#SBATCH -N1 -n3 --nodelist=n1 
#SBATCH hetjob
#SBATCH -N1 -n1 --nodelist=n2


# Execute job steps
srun -n 1 --het-group=0 --exclusive bash -c "sleep 5; echo 1" &
wait
