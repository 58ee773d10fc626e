#!/bin/bash
# corpus: mensch72/nanoGPT slurm/test.sh (as found: --workdir is an old option)

#SBATCH --qos=short
#SBATCH --job-name=test_job
#SBATCH --account=heitzig
#SBATCH --output=test-%j.out
#SBATCH --error=test-%j.err
#SBATCH --workdir=/p/tmp/heitzig

hostname
