#!/usr/bin/bash
# corpus: pattern of a Sigma2 MPI test (code-index excerpt: threads-per-core=1, quoted job name); paraphrased; partition -> debug, account dropped
#SBATCH --partition=debug
#SBATCH --time=00:10:00
#SBATCH --threads-per-core=1
#SBATCH --job-name="mpitest"
#SBATCH --output=mpitest_%j.txt

cd ${SLURM_SUBMIT_DIR}
srun --nodes=1 --ntasks-per-node=4 --cpu-bind=verbose,cores --distribution=block:cyclic ./main
