#!/bin/bash
# corpus: pattern of a documentation example (code-index excerpt: several options on one #SBATCH line, ntasks-per-core, exclusive); paraphrased, sizes scaled to the oracle
#SBATCH --ntasks=4 --ntasks-per-node=2 --cpus-per-task=2 --ntasks-per-core=2
#SBATCH --mem-per-cpu=300m --exclusive

export OMP_NUM_THREADS=2
./dispatch.x
