#!/bin/sh
# corpus: mirkoklukas/nbxom example_bundle_nbx/run.sh (as found)

#SBATCH --out=io/runner_out__%A
#SBATCH --error=io/runner_err__%A

job_0=`sbatch --array=1-10%50 job.sh | awk '{ print $4 }'`
