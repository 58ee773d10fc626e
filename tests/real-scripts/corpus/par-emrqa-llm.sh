#!/bin/sh
# corpus: lanzv/PAR-emrQA scripts/trainllm.sh; neutralised: partition gpu-ms -> gpu, node dll-3gpu1 -> n3
#SBATCH -J llmrun
#SBATCH -o scripts/slurm_outputs/run_llm.out
#SBATCH -p gpu
#SBATCH -G 1
#SBATCH --mem-per-gpu=90G
#SBATCH --nodelist=n3

python trainllm.py
