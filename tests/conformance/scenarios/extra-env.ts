/**
 * @module tests/conformance/scenarios/extra-env
 * Beyond the goldens: the job environment (SLURM_* and visible-device variables)
 * for multi-node, per-task CPU, memory, GPU, array, srun-step and salloc jobs and
 * for --export; and output file name patterns (%j %x %u %N %A %a %5j %% \ ...).
 * Jobs are submitted first and awaited together to keep the group short.
 */
import { cap, GREP_ENV, run, type Group, type Step } from "../scenario.ts";
import { script } from "./extra-sbatch.ts";

/**
 * Submit a batch job whose output (the filtered environment) goes to env-<tag>.out,
 * and wait for it: one at a time, so the node named with -w is free (a job asking for a busy -w node waits, as x-nodelist-busy-node shows).
 */
const envJob = (tag: string, args: string): Step => run(`sbatch ${args} -o env-${tag}.out ./showenv.sh >/dev/null; wait_idle`);
const envWrap = (cmd: string): Step => run(`${cmd} >/dev/null; wait_idle`);
const envCap = (tag: string, setup: string) => cap(`x-env-${tag}`, `cat env-${tag}.out`, { setup });

export const environment: Group = {
  name: "extra: job environment",
  steps: [
    run("scancel -u root 2>/dev/null; wait_idle"),
    script("showenv.sh", `#!/bin/bash\n${GREP_ENV}\n`),
    // nodes are pinned (-w, with -N so Slurm cannot add nodes when the named one is busy) so placement policy does not hide what the environment says; GPU jobs
    // get a node each because visible-device indices are global on the oracle (no cgroup isolation)
    envJob("multinode", "-N2 -n3 -w n[1-2]"),
    envJob("cpus-per-task", "-N1 -n2 -c2 -w n2"),
    envJob("ntasks-per-node", "-N2 --ntasks-per-node=2 -w n[1-2]"),
    envJob("mem", "-N1 --mem=500 -w n1"),
    envJob("gpus-per-node", "-N1 -p gpu --gpus-per-node=2 -w n3"),
    envJob("gpus-per-task", "-N1 -p gpu -n2 --gpus-per-task=1 -w n4"),
    envJob("named-time", "-N1 -J envname -t 15 -w n1"),
    envWrap("sbatch --array=4-5 -N1 -w n2 -o env-array-%a.out ./showenv.sh"),
    envWrap("sbatch -N1 -n2 -w n1 -o env-step.out --wrap='srun -n1 ./showenv.sh'"),
    envWrap("sbatch -N2 -n2 -w n[1-2] -o env-step-multi.out --wrap='srun -l ./showenv.sh | sort'"),
    envWrap("FOO=bar sbatch --export=NONE -N1 -w n1 -o env-export-none.out --wrap='echo FOO=${FOO:-unset}; ./showenv.sh'"),
    envWrap("FOO=bar sbatch --export=BAZ=qux -N1 -w n1 -o env-export-list.out --wrap='echo FOO=${FOO:-unset} BAZ=${BAZ:-unset}'"),
    envWrap("FOO=bar sbatch -N1 -w n1 -o env-export-all.out --wrap='echo FOO=${FOO:-unset}'"),
    envJob("gres-typed", "-N1 --gres=gpu:mi300x:1 -w n3"),
    envCap("multinode", "sbatch -N2 -n3 -w n[1-2]"),
    envCap("cpus-per-task", "sbatch -N1 -n2 -c2 -w n2"),
    envCap("ntasks-per-node", "sbatch -N2 --ntasks-per-node=2 -w n[1-2]"),
    envCap("mem", "sbatch -N1 --mem=500 -w n1"),
    envCap("gpus-per-node", "sbatch -N1 -p gpu --gpus-per-node=2 -w n3"),
    envCap("gpus-per-task", "sbatch -N1 -p gpu -n2 --gpus-per-task=1 -w n4"),
    envCap("gres-typed", "sbatch -N1 --gres=gpu:mi300x:1 -w n3, alone on the node"),
    envCap("named-time", "sbatch -N1 -J envname -t 15 -w n1"),
    cap("x-env-array-task", "cat env-array-4.out", { setup: "sbatch --array=4-5 -N1 -w n2, task 4" }),
    cap("x-env-srun-step-in-batch", "cat env-step.out", { setup: "sbatch -N1 -n2 -w n1 --wrap='srun -n1 ./showenv.sh'" }),
    cap("x-env-srun-step-multinode", "cat env-step-multi.out", { setup: "sbatch -N2 -n2 -w n[1-2] --wrap='srun -l ./showenv.sh | sort'" }),
    cap("x-env-export-none", "cat env-export-none.out", { setup: "FOO=bar sbatch --export=NONE" }),
    cap("x-env-export-list", "cat env-export-list.out", { setup: "FOO=bar sbatch --export=BAZ=qux" }),
    cap("x-env-export-all", "cat env-export-all.out", { setup: "FOO=bar sbatch (default --export=ALL)" }),
    cap("x-env-srun-own-allocation-multinode", "srun -N2 -n2 -w n[1-2] -l ./showenv.sh | sort"),
    cap("x-env-srun-cpus-per-task", "srun -N1 -n1 -c2 -w n1 ./showenv.sh"),
    cap("x-env-salloc", "salloc -N1 -n2 -w n1 ./showenv.sh"),
    // -w names a node that is full: Slurm waits for it (Resources), Spur must not start the job elsewhere
    run("sbatch --parsable -N1 -n4 -w n1 -J filler --wrap='sleep 120'", "FILL"),
    run("wait_state $FILL RUNNING"),
    cap("x-nodelist-busy-node", "j=$(sbatch --parsable -N1 -w n1 --wrap=true) && sleep 2 && squeue -h -t all -j $j -o '%T|%r|%N'"),
    run("scancel -u root; wait_idle"),
  ],
};

/** [tag, sbatch arguments] of the output-name scenarios; each runs in its own directory fp-<tag>. */
const PATTERNS: [string, string][] = [
  ["default", ""],
  ["jobid-name", "-J pat -o '%j-%x.out'"],
  ["name-user-node", "-J pat -o '%x_%u_%N.out'"],
  ["padded", "-o 'p-%5j.out'"],
  ["percent", "-o '%%-%j.out'"],
  ["separate-err", "-o 'o-%j.out' -e 'e-%j.err'"],
  ["backslash", "-o '\\%j.out'"],
  ["jobstep", "-o '%J.out'"],
  ["node-task-step", "-o '%n-%t-%s.out'"],
  ["unknown-letter", "-o '%q-%j.out'"],
  ["array-default", "--array=1-2"],
  ["array-A-a", "--array=1-2 -o 'a-%A_%a.out'"],
  ["array-b-padded-a", "--array=12-13 -o 'b-%b-%3a.out'"],
  ["chdir-relative", "-D sub -o 'rel-%j.out'"],
];

const fpVar = (tag: string) => `FP_${tag.replace(/-/g, "_").toUpperCase()}`;

export const filenames: Group = {
  name: "extra: output file names",
  steps: [
    ...PATTERNS.map(([tag, args]) =>
      run(`mkdir -p fp-${tag}/sub && cd fp-${tag} && sbatch --parsable ${args} --wrap='echo out; echo err >&2'`, fpVar(tag)),
    ),
    run("wait_idle"),
    ...PATTERNS.map(([tag, args]) =>
      cap(`x-outname-${tag}`, `cd fp-${tag} && for f in $(find . -type f | sort); do echo "== $f"; cat "$f"; done`, {
        setup: `sbatch ${args} --wrap='echo out; echo err >&2' in fp-${tag}`,
        ids: [fpVar(tag)],
      }),
    ),
    cap("x-outname-srun-task", "mkdir -p fp-srun && cd fp-srun && srun -n2 -o 'sr-%t.out' printenv SLURM_PROCID && ls && cat sr-0.out sr-1.out"),
  ],
};
