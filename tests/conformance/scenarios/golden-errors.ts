/**
 * @module tests/conformance/scenarios/golden-errors
 * Golden scenarios 079-101 (capture.sh sections F-G), re-run live: dependencies
 * (satisfied, never satisfied, unknown job, bad syntax) and sbatch/squeue/sacct
 * errors with their exit codes.
 */
import { cap, run, type Group } from "../scenario.ts";

export const dependencies: Group = {
  name: "golden F: dependencies",
  steps: [
    run("sbatch --parsable -J willfail --wrap='sleep 1; exit 1'", "FAIL"),
    cap("079-sbatch-dependency-afterok-fail", "sbatch --dependency=afterok:$FAIL -J needsok --wrap=true"),
    run("squeue -h -n needsok -o %i | head -1", "NEEDSOK"),
    run("wait_state $FAIL FAILED; sleep 2"),
    cap("080-squeue-dependency-never-satisfied", "squeue -j $NEEDSOK", { setup: "job $FAIL 'willfail' exited 1; job $NEEDSOK depends afterok:$FAIL" }),
    cap("081-scontrol-show-job-dep-never", "scontrol show job $NEEDSOK", { setup: "job $FAIL 'willfail' exited 1; job $NEEDSOK depends afterok:$FAIL" }),
    run("scancel $NEEDSOK"),
    run("sbatch --parsable -J first --wrap='sleep 2'", "OK1"),
    cap("082-sbatch-dependency-afterok-ok", "sbatch --parsable --dependency=afterok:$OK1 -J second --wrap=true"),
    cap("083-sbatch-dependency-unknown-job", "sbatch --dependency=afterok:999999 --wrap=true"),
    cap("084-sbatch-dependency-bad-syntax", "sbatch --dependency=bogus:1 --wrap=true"),
    run("wait_idle"),
  ],
};

export const errors: Group = {
  name: "golden G: sbatch errors",
  steps: [
    cap("085-sbatch-bad-option", "sbatch --bogus-option --wrap=true"),
    cap("086-sbatch-bad-partition", "sbatch -p nosuch --wrap=true"),
    cap("087-sbatch-too-many-gpus", "sbatch --gres=gpu:99 --wrap=true"),
    cap("088-sbatch-bad-gres-name", "sbatch --gres=fpga:1 --wrap=true"),
    cap("089-sbatch-bad-time", "sbatch --time=abc --wrap=true"),
    cap("090-sbatch-too-many-nodes", "sbatch -N5 -J toomanynodes --wrap=true"),
    cap("091-sbatch-too-many-tasks", "sbatch -n 100 -J toomanytasks --wrap=true"),
    run("sleep 1"),
    cap("092-squeue-partitionconfig", "squeue", { setup: "the two previous scenarios' jobs" }),
    run("scancel -n toomanynodes; scancel -n toomanytasks"),
    cap("093-sbatch-huge-time", "sbatch --time=99999999 -J hugetime --wrap=true"),
    cap("094-sbatch-gpus-too-many", "sbatch --gpus=99 --wrap=true"),
    cap("095-sbatch-too-much-mem", "sbatch --mem=999999 --wrap=true"),
    cap("096-sbatch-empty-script", "sbatch </dev/null"),
    cap("097-sbatch-missing-file", "sbatch /nonexistent/job.sh"),
    cap("098-sbatch-no-shebang", "printf 'echo hi\\n' > noshebang.sh; sbatch noshebang.sh"),
    cap("099-sbatch-bad-array", "sbatch --array=abc --wrap=true"),
    cap("100-squeue-bad-option", "squeue --bogus"),
    cap("101-sacct-bad-option", "sacct --bogus"),
    run("wait_idle"),
  ],
};
