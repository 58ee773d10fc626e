/**
 * @module tests/conformance/scenarios/golden-idle
 * Golden scenarios 001-041 (../shared/oracle/capture.sh sections A-C), re-run
 * live: the idle cluster, srun, and sbatch basics. Ids are the golden file names.
 */
import { cap, GREP_ENV, run, type Group } from "../scenario.ts";

/** Every group starts from an empty queue; T0 bounds the accounting queries to this run. */
export const CLEAN = run("scancel -u root 2>/dev/null; wait_idle");

export const idle: Group = {
  name: "golden A: idle cluster",
  steps: [
    CLEAN,
    run('sleep 1; date +%Y-%m-%dT%H:%M:%S', "T0"),
    cap("001-version-sbatch", "sbatch --version"),
    cap("002-version-squeue", "squeue --version"),
    cap("003-sinfo-default", "sinfo"),
    // sorted: the oracle lists a node's partitions in either order from run to run
    cap("004-sinfo-N-l", "sinfo -N -l", { compare: "sorted" }),
    cap("005-sinfo-o-custom", 'sinfo -o "%P %a %l %D %t %N"'),
    // sorted: the oracle lists a node's partitions in either order from run to run
    cap("006-sinfo-N-o-nodes", 'sinfo -N -o "%N %P %c %m %G %T"', { compare: "sorted" }),
    cap("007-sinfo-s", "sinfo -s"),
    cap("008-sinfo-p-gpu", "sinfo -p gpu"),
    cap("009-sinfo-h", "sinfo -h"),
    cap("010-sinfo-R-empty", "sinfo -R"),
    cap("011-sinfo-p-nosuch", "sinfo -p nosuch"),
    cap("012-sinfo-json", "sinfo --json", { compare: "json" }),
    cap("013-squeue-empty", "squeue"),
    // 22.05's squeue --json lists finished jobs for MinJobAge (300 s) whatever -t says: only an oracle with none is "empty"
    cap("014-squeue-json-empty", "squeue --json", { compare: "json", pre: '[[ -z "$(squeue -h -t all -o %i)" ]]', preWhy: "no job finished in the last MinJobAge (a fresh oracle)" }),
    cap("015-scontrol-show-partition", "scontrol show partition"),
    cap("016-scontrol-show-partition-gpu", "scontrol show partition gpu"),
    cap("017-scontrol-show-node-n3", "scontrol show node n3"),
    cap("018-scontrol-show-node-all", "scontrol show node"),
    cap("019-scontrol-show-node-oneliner", "scontrol -o show node n1"),
    cap("020-scontrol-ping", "scontrol ping"),
    // plain `sacct` shows today's jobs; the oracle keeps earlier runs' jobs, so both sides start at T0
    cap("021-sacct-empty", 'sacct -S "$T0"', { setup: "no job since T0 (the start of this run)" }),
    cap("022-scontrol-show-config", "scontrol show config"),
  ],
};

export const srun: Group = {
  name: "golden B: srun",
  steps: [
    cap("023-srun-hostname", "srun hostname"),
    cap("024-srun-N2-l", "srun -N2 -l hostname | sort"),
    cap("025-srun-n3-l", "srun -n3 -l hostname | sort"),
    cap("026-srun-gres-env", `srun --gres=gpu:2 bash -c "${GREP_ENV}"`),
    cap("027-srun-exit-code", "srun false"),
    cap("028-srun-bad-partition", "srun -p nosuch hostname"),
    cap("029-srun-too-many-gpus", "srun --gres=gpu:99 hostname"),
    cap("030-srun-too-many-nodes-immediate", "srun -N5 --immediate=2 hostname", { timeoutS: 20 }),
    cap("031-srun-too-many-nodes-waits", "timeout 4 srun -N5 hostname", { timeoutS: 20 }),
    cap("032-srun-bad-option", "srun --bogus hostname"),
    CLEAN,
  ],
};

export const sbatchBasics: Group = {
  name: "golden C: sbatch basics",
  steps: [
    cap("033-sbatch-wrap", "sbatch --wrap=true"),
    cap("034-sbatch-parsable", "sbatch --parsable --wrap=true", { as: "FIRST" }),
    cap("035-sbatch-wait-ok", "sbatch --wait --wrap=true"),
    cap("036-sbatch-wait-fail", "sbatch --wait --wrap='exit 3'"),
    cap("037-sbatch-test-only", "sbatch --test-only --wrap=true"),
    run("wait_idle"),
    cap("038-sbatch-gpu-env-submit", `sbatch --wait --gres=gpu:2 --job-name=gpuenv --output=%x-%j.out --wrap="${GREP_ENV}"`),
    run("j=$(squeue -h -t all -n gpuenv -o %i | head -1); [[ -n $j ]] || j=$(sacct -n -X -P --name=gpuenv -o JobID | tail -1); echo $j", "GPUJOB"),
    cap("039-sbatch-gpu-env-output", "cat gpuenv-$GPUJOB.out", { setup: "output file of the previous scenario (--gres=gpu:2, default partition)" }),
    cap("040-sbatch-gpus-flag-env", `sbatch --wait -p gpu --gpus=1 --output=gpus1-%j.out --wrap="${GREP_ENV}" >/dev/null && cat gpus1-*.out`),
    cap("041-sbatch-nogpu-env", `sbatch --wait --output=nogpu-%j.out --wrap="${GREP_ENV}" >/dev/null && cat nogpu-*.out`),
  ],
};
