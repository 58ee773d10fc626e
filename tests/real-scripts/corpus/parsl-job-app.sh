#!/bin/bash
# corpus: Parsl/parsl parsl/dataflow/workspace/job_app.bash; neutralised: partition build -> debug
#SBATCH --job-name=app_slurm
#SBATCH --output=runinfo/slurm/%x-%A.out
#SBATCH --error=runinfo/slurm/%x-%A.err
#SBATCH -p debug
#SBATCH --time=0:10:00


# Here you should modify for your own conda-env
module load Anaconda3/5.0.0.1
source activate parsl
