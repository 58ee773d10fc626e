/**
 * @module tests/conformance/scenarios/extra-partitions
 * Jobs submitted to several partitions (`-p a,b`, sched/model/job-partitions.ts): the Partition=
 * text a held job keeps as given, the one rebuilt when the submit-time test ran (the partition
 * that passed first), `squeue -P` rows per partition, refusals, scancel's whole-text `-p`,
 * `scontrol update Partition=` with a list, and the partition a started job runs in. Not compared:
 * sacct's Partition of such a job, which the oracle's slurmdbd records as the partition, the list
 * or empty depending on timing (seen: "debug" in one run, "" in the next, for the same commands).
 */
import { cap, run, type Group } from "../scenario.ts";

const FIELDS = "%j|%D|%C|%P|%r";

export const severalPartitions: Group = {
  name: "extra: jobs of several partitions",
  steps: [
    run("scancel -u root 2>/dev/null; wait_idle"),
    cap("x-multipart-held-as-given", `j=$(sbatch -H --parsable -J mpa -p gpu,debug --wrap=true) && squeue -h -j $j -o '${FIELDS}' && squeue -h -P -j $j -o '${FIELDS}'`),
    cap("x-multipart-held-empty-entries", `j=$(sbatch -H --parsable -J mpa -p gpu,,debug --wrap=true) && squeue -h -j $j -o '${FIELDS}'`),
    cap("x-multipart-held-trailing-comma", `j=$(sbatch -H --parsable -J mpa -p gpu, --wrap=true) && squeue -h -j $j -o '${FIELDS}' && scontrol show job $j | grep -o 'Partition=[^ ]*'`),
    cap("x-multipart-held-too-big-for-first", `j=$(sbatch -H --parsable -J mpa -p gpu,debug -N3 --wrap=true) && squeue -h -j $j -o '${FIELDS}'`),
    cap("x-multipart-squeue-P-rows", "a=$(sbatch -H --parsable -J mpa -p gpu,,debug --wrap=true) && b=$(sbatch -H --parsable -J mpa -p gpu,gpu --wrap=true) && squeue -P -h -j $a,$b -o '%i|%P'"),
    cap("x-multipart-unknown-partition", "sbatch -J mpa -p debug,nosuch --wrap=true"),
    cap("x-multipart-too-big-for-all", "sbatch -J mpa -p debug,gpu -N5 --wrap=true"),
    cap("x-multipart-tested-rebuilt", "j=$(sbatch --parsable -J mpa -p gpu,debug -N3 --begin=now+600 --wrap=true) && squeue -h -j $j -o '%P' && squeue -h -P -j $j -o '%P' && scontrol show job $j | grep -o 'Partition=[^ ]*'"),
    cap("x-multipart-scancel-partition-text", "scancel -p gpu -n mpa; echo rc=$?; squeue -h -n mpa -o '%P' | sort; scancel -p gpu,debug -n mpa; echo rc=$?; squeue -h -n mpa -o '%P' | sort"),
    cap("x-multipart-update-list", "j=$(sbatch -H --parsable -J mpa -p gpu --wrap=true) && scontrol update jobid=$j partition=gpu,,debug; scontrol show job $j | grep -o 'Partition=[^ ]*'; scontrol update jobid=$j partition=debug,bogus; echo rc=$?"),
    run("scancel -n mpa; wait_idle"),
    cap("x-multipart-runs-in-one", "j=$(sbatch --parsable -J mpb -p gpu,debug -N3 -t1 -o mpb.out --wrap='echo P=$SLURM_JOB_PARTITION') && wait_idle && cat mpb.out && scontrol show job $j | grep -o 'Partition=[^ ]*' && wait_sacct $j && sacct -X -n -P -j $j -o state"),
    run("scancel -u root; wait_idle"),
  ],
};
