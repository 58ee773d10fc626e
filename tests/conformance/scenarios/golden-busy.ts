/**
 * @module tests/conformance/scenarios/golden-busy
 * Golden scenarios 042-078 (capture.sh sections D-E), re-run live: a GPU array
 * job from #SBATCH directives plus running, held, dependent, delayed and blocked
 * jobs; squeue/sinfo/scontrol on that busy cluster; then scancel.
 */
import { cap, run, type Group } from "../scenario.ts";

const GOLDEN_JOB = `#!/bin/bash
#SBATCH --job-name=golden
#SBATCH --output=%x-%j.out
#SBATCH --gres=gpu:2
#SBATCH --ntasks=2
#SBATCH --time=00:10:00
#SBATCH --array=1-3
echo "array task $SLURM_ARRAY_TASK_ID of job $SLURM_ARRAY_JOB_ID on $SLURMD_NODENAME"
env | grep -E '^(SLURM|CUDA|ROCR|HIP|GPU|ZE_)' | sort
sleep 600
`;

const BUSY =
  "array job $ARR (golden_job.sh, 3 tasks running, sleep 600); $LONG 'long' running (--time=10:00, sleep 600); "
  + "pending: $HELD 'held' (-H), $DEP 'dep' (--dependency=afterok:$ARR), $LATER 'later' (--begin=now+1hour), $BIG 'big' (-N4 --exclusive)";

const busy = (id: string, cmd: string, compare?: "json") => cap(id, cmd, { setup: BUSY, ...(compare ? { compare } : {}) });

export const busyCluster: Group = {
  name: "golden D: busy cluster",
  steps: [
    run("wait_idle"),
    run(`cat >golden_job.sh <<'EOF'\n${GOLDEN_JOB}EOF`),
    cap("042-sbatch-script-directives-cat", "cat golden_job.sh"),
    cap("043-sbatch-script-array", "sbatch golden_job.sh"),
    run("squeue -h -n golden -o %F | head -1", "ARR"),
    run("for t in 1 2 3; do wait_state ${ARR}_$t RUNNING; done"),
    run("sbatch --parsable -J long --time=10:00 --wrap='sleep 600'", "LONG"),
    run("wait_state $LONG RUNNING"),
    run("sbatch --parsable -H -J held --wrap=true", "HELD"),
    run("sbatch --parsable -J dep --dependency=afterok:$ARR --wrap=true", "DEP"),
    run("sbatch --parsable -J later --begin=now+1hour --wrap=true", "LATER"),
    run("sbatch --parsable -J big -N4 --exclusive --wrap=true", "BIG"),
    run("sleep 2"),
    // where there is a backfill scheduler (the oracle), wait for its plan for 'big' (nodes show "planned"):
    // capture.sh's timing caught the state before or after it by chance
    run("scontrol show config | grep -q '^SchedulerType.*backfill' || exit 0; for i in $(seq 70); do [[ $(squeue -h -j $BIG --start -o %S) != N/A ]] && break; sleep 0.5; done", undefined, 45),
    busy("044-squeue-busy-default", "squeue"),
    busy("045-squeue-busy-o-format", 'squeue -o "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"'),
    busy("046-squeue-busy-h-o-i", "squeue -h -o %i"),
    busy("047-squeue-busy-l", "squeue -l"),
    busy("048-squeue-busy-t-PD", "squeue -t PD"),
    busy("049-squeue-busy-u-root", "squeue -u root"),
    busy("050-squeue-busy-j-array", "squeue -j $ARR"),
    busy("051-squeue-busy-r", "squeue -r"),
    busy("052-squeue-busy-start", "squeue --start"),
    busy("053-squeue-busy-o-many", 'squeue -o "%i|%A|%F|%K|%j|%P|%T|%t|%r|%R|%D|%C|%b|%l|%L|%M|%S|%V|%Q|%u|%a|%q|%Z|%o"'),
    busy("054-squeue-busy-O-format", 'squeue -O "JobID,Name,State,Reason,tres-per-node,NumCPUs,TimeLimit"'),
    busy("055-squeue-busy-json", "squeue --json", "json"),
    busy("056-sinfo-busy-default", "sinfo"),
    // sorted: the oracle lists a node's partitions in either order from run to run
    cap("057-sinfo-busy-N-l", "sinfo -N -l", { setup: BUSY, compare: "sorted" }),
    // sorted: the oracle lists a node's partitions in either order from run to run
    cap("058-sinfo-busy-o-cpus", 'sinfo -N -o "%N %C %G %T"', { setup: BUSY, compare: "sorted" }),
    run("squeue -h -r -n golden -o %A | xargs", "TASKIDS"),
    cap("059-scontrol-show-job-array-task", "scontrol show job ${ARR}_1", { setup: BUSY, ids: ["TASKIDS"] }),
    run("o=$(scontrol show job ${ARR}_1 | sed -n 's/^ *StdOut=//p'); echo ${o##*/}", "T1OUT"),
    busy("060-array-task-output", "cat $T1OUT"),
    cap("061-array-gpu-indices", "grep -H -E 'array task|_VISIBLE_DEVICES|SLURM_JOB_GPUS' golden-*.out", { setup: BUSY, ids: ["TASKIDS"] }),
    cap("062-scontrol-show-job-array-all", "scontrol show job $ARR", { setup: BUSY, ids: ["TASKIDS"] }),
    busy("063-scontrol-show-job-held", "scontrol show job $HELD"),
    busy("064-scontrol-show-job-dep", "scontrol show job $DEP"),
    busy("065-scontrol-show-job-oneliner", "scontrol -o show job $LONG"),
    busy("066-scontrol-show-node-busy", "scontrol show node n3"),
    busy("067-scontrol-hold", "scontrol hold $LATER"),
    busy("068-scontrol-release", "scontrol release $HELD"),
    busy("069-scontrol-show-job-bad", "scontrol show job 999999"),
    busy("070-squeue-j-bad", "squeue -j 999999"),
  ],
};

export const scancel: Group = {
  name: "golden E: scancel",
  steps: [
    busy("071-scancel-array-task", "scancel ${ARR}_2"),
    busy("072-scancel-by-name", "scancel -n later"),
    busy("073-scancel-nonexistent", "scancel 999999"),
    busy("074-scancel-nonexistent-v", "scancel -v 999999"),
    busy("075-scancel-bad-id", "scancel abc"),
    busy("076-scancel-completed", "scancel $FIRST"),
    cap("077-squeue-after-scancel", "squeue", { setup: `${BUSY}; after scancel \${ARR}_2 and -n later` }),
    busy("078-scancel-all-user", "scancel -u root"),
    run("wait_idle"),
    run("wait_sacct $ARR $LONG $HELD $DEP $LATER $BIG"),
  ],
};
