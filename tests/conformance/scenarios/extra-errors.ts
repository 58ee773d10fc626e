/**
 * @module tests/conformance/scenarios/extra-errors
 * Beyond the goldens: error messages and exit codes for bad input to every
 * command (bad values, unknown names, missing arguments).
 */
import { cap, run, type Group, type Step } from "../scenario.ts";

/** srun scenarios name their node (-w n1): the oracle's choice varies and the node shows in messages. */
const BAD: [string, string][] = [
  ["sbatch-ntasks-zero", "sbatch -n 0 --wrap=true"],
  ["sbatch-nodes-zero", "sbatch -N 0 --wrap=true"],
  ["sbatch-mem-garbage", "sbatch --mem=abc --wrap=true"],
  ["sbatch-array-too-big", "sbatch --array=1-5000 --wrap=true"],
  ["sbatch-dependency-garbage-id", "sbatch --dependency=afterok:abc --wrap=true"],
  ["sbatch-begin-garbage", "sbatch --begin=garbage --wrap=true"],
  ["sbatch-cpus-garbage", "sbatch -c abc --wrap=true"],
  ["sbatch-gres-garbage-count", "sbatch --gres=gpu:abc --wrap=true"],
  ["sbatch-nodelist-unbalanced", "sbatch -w 'n[1-' --wrap=true"],
  ["sbatch-missing-arg", "sbatch --time"],
  ["sbatch-no-script", "sbatch"],
  ["sbatch-cpus-too-many", "sbatch -c 8 --wrap=true"],
  ["sbatch-gpus-wrong-partition", "sbatch -p debug -w n1 --gres=gpu:1 --wrap=true"],
  ["srun-bad-time", "srun --time=abc true"],
  ["srun-no-command", "srun"],
  ["srun-ntasks-zero", "srun -n 0 true"],
  ["srun-command-not-found", "srun -w n1 /nonexistent/cmd"],
  ["srun-signal-exit", "srun -w n1 bash -c 'kill -9 $$'"],
  ["srun-exit-code-7", "srun -w n1 bash -c 'exit 7'"],
  ["scontrol-show-job-garbage", "scontrol show job abc"],
  ["scontrol-unknown-command", "scontrol bogus"],
  ["scontrol-show-unknown-entity", "scontrol show nosuch"],
  ["scontrol-hold-nonexistent", "scontrol hold 999999"],
  ["scontrol-release-garbage", "scontrol release abc"],
  ["scontrol-show-node-unknown", "scontrol show node n9"],
  ["scontrol-show-partition-unknown", "scontrol show partition nosuch"],
  ["scontrol-update-nonexistent", "scontrol update JobId=999999 TimeLimit=5"],
  // partition commands: refused before anything changes (a name the oracle does not have; DEFAULT and
  // unknown entities are refused by scontrol itself), and listpids' argument checks
  ["scontrol-create-partition-default", "scontrol create PartitionName=default"],
  ["scontrol-create-unknown-entity", "scontrol create bogus=1"],
  ["scontrol-delete-unknown-entity", "scontrol delete bogus=1"],
  ["scontrol-delete-partition-unknown", "scontrol delete PartitionName=nosuchpart"],
  ["scontrol-delete-partition-two-words", "scontrol delete partition nosuchpart"],
  ["scontrol-update-partition-unknown", "scontrol update PartitionName=nosuchpart State=UP"],
  ["scontrol-update-partition-no-changes", "scontrol update PartitionName=nosuchpart"],
  ["scontrol-update-partition-bad-state", "scontrol update PartitionName=nosuchpart State=sideways"],
  ["scontrol-update-partition-unknown-key", "scontrol update PartitionName=nosuchpart Foo=1"],
  ["scontrol-update-partition-bad-maxnodes", "scontrol update PartitionName=nosuchpart MaxNodes=x"],
  ["scontrol-listpids-bad-jobid", "scontrol listpids abc"],
  ["scontrol-listpids-bad-stepid", "scontrol listpids 1.x n1"],
  ["squeue-bad-state", "squeue -t BOGUS"],
  ["squeue-unknown-user", "squeue -u nosuchuser"],
  ["squeue-unknown-partition", "squeue -p nosuch"],
  ["squeue-missing-format-arg", "squeue -o"],
  ["squeue-garbage-job", "squeue -j abc"],
  ["sinfo-bad-state", "sinfo -t bogus"],
  ["sinfo-unknown-node", "sinfo -n n9"],
  ["sinfo-bad-option", "sinfo --bogus"],
  ["sacct-bad-state", "sacct -s bogus"],
  ["sacct-garbage-job", "sacct -j abc"],
  ["sacct-unknown-field", "sacct -o NoSuchField"],
  ["sacct-bad-start", "sacct -S garbage"],
  ["scancel-no-args", "scancel"],
  ["scancel-bad-option", "scancel --bogus"],
  ["scancel-unknown-partition", "scancel -p nosuch"],
];

/** Scenarios whose stderr lines come from two processes (srun and the node) in racing order. */
const RACY = new Set(["srun-command-not-found", "srun-signal-exit"]);

export const badInput: Group = {
  name: "extra: errors and exit codes",
  steps: BAD.flatMap(([slug, cmd]): Step[] => {
    const c = cap(`x-err-${slug}`, cmd, { timeoutS: 20, ...(RACY.has(slug) ? { compare: "sorted" as const } : {}) });
    // the previous srun's job may still be completing on n1, and Slurm would queue this one behind it
    return cmd.includes("-w n1") && cmd.startsWith("srun") ? [run("wait_node_idle n1"), c] : [c];
  }),
};
