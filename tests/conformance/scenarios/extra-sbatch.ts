/**
 * @module tests/conformance/scenarios/extra-sbatch
 * Beyond the goldens: #SBATCH edge cases (directives after the first command,
 * extra spaces, `--opt value` vs `--opt=value`, bundled short options, comments,
 * precedence of command line > SBATCH_* environment > script) and common sbatch
 * options with representative values. Jobs are held (-H) so squeue shows what
 * each request became; the fields cover name, size, memory, limits, GRES, nodes.
 */
import { cap, run, type CapStep, type Group } from "../scenario.ts";

/** squeue fields that show what a request became. */
const FIELDS = "%j|%D|%C|%m|%l|%P|%b|%n|%x|%k|%y|%r|%h|%O";

/** Write an executable script in the job directory. */
export const script = (name: string, body: string) => run(`cat >${name} <<'EOF'\n${body}EOF\nchmod +x ${name}`);

/** Submit held with `args`, then show the job's fields. */
const held = (id: string, args: string, env = ""): CapStep =>
  cap(id, `j=$(${env}sbatch -H --parsable ${args}) && squeue -h -j $j -o '${FIELDS}'`);

export const directives: Group = {
  name: "extra: #SBATCH directives",
  steps: [
    run("scancel -u root 2>/dev/null; wait_idle"),
    script("after-cmd.sh", "#!/bin/bash\n#SBATCH -J early\n#SBATCH -n 2\necho hi\n#SBATCH -J late\n#SBATCH -n 3\n"),
    held("x-directive-after-first-command-ignored", "after-cmd.sh"),
    script("spaces.sh", "#!/bin/bash\n#SBATCH   --job-name=spaced\n#SBATCH\t--ntasks=2\n#SBATCH --time=5   \n"),
    held("x-directive-extra-spaces", "spaces.sh"),
    script("opt-value.sh", "#!/bin/bash\n#SBATCH --job-name optvalue\n#SBATCH --time 00:07:00\n#SBATCH --mem 300\n"),
    held("x-directive-opt-space-value", "opt-value.sh"),
    script("opt-equals.sh", "#!/bin/bash\n#SBATCH --job-name=optequals\n#SBATCH --time=00:07:00\n#SBATCH --mem=300\n"),
    held("x-directive-opt-equals-value", "opt-equals.sh"),
    script("short.sh", "#!/bin/bash\n#SBATCH -Jshort -n2\n#SBATCH -N 1\n#SBATCH -t10\n"),
    held("x-directive-short-attached", "short.sh"),
    cap("x-bundled-short-flags-HQ", "sbatch -HQ -J hq --wrap=true; echo rc=$?; squeue -h -n hq -o '%j|%r'"),
    cap("x-bundled-short-flags-with-arg", "j=$(sbatch -Hn2 --parsable --wrap=true) && squeue -h -j $j -o '%C|%r'"),
    script("comments.sh", "#!/bin/bash\n# a comment line\n\n#SBATCH --job-name=aftercomment\n# SBATCH -J notadirective\n#sbatch -J lowercase\n#SBATCH --comment=hello # trailing\n"),
    held("x-directive-comments-and-near-misses", "comments.sh"),
    script("named.sh", "#!/bin/bash\n#SBATCH -J fromscript\n#SBATCH -t 5\n"),
    held("x-precedence-cli-over-script", "-J fromcli named.sh"),
    held("x-precedence-env-over-script", "named.sh", "SBATCH_JOB_NAME=fromenv SBATCH_TIMELIMIT=9 "),
    held("x-precedence-cli-over-env", "-J fromcli named.sh", "SBATCH_JOB_NAME=fromenv "),
    script("sh-shebang.sh", "#!/bin/sh\n#SBATCH -J shell\n"),
    held("x-directive-sh-shebang", "sh-shebang.sh"),
    cap("x-script-from-stdin", "j=$(sbatch -H --parsable) && squeue -h -j $j -o '%j|%C'", { stdin: "#!/bin/bash\n#SBATCH -n 2\ntrue\n" }),
    cap("x-no-shebang-stdin", "sbatch", { stdin: "echo hi\n" }),
    cap("x-shebang-not-first-line", "printf '\\n#!/bin/bash\\ntrue\\n' >late-shebang.sh; sbatch late-shebang.sh"),
    cap("x-wrap-and-script-both", "sbatch --wrap=true named.sh"),
    run("scancel -u root; wait_idle"),
  ],
};

/** Common sbatch options with representative values (../shared/slurm-surface/sbatch-options.tsv). */
const OPTIONS: [string, string][] = [
  ["nodes-2", "-N2"],
  ["nodes-range", "--nodes=1-2"],
  ["ntasks-3", "-n3"],
  ["cpus-per-task-2", "-c2"],
  ["ntasks-per-node", "-N2 --ntasks-per-node=2"],
  ["mem-1G", "--mem=1G"],
  ["mem-per-cpu", "--mem-per-cpu=300"],
  ["time-mm-ss", "-t 1:30"],
  ["time-days", "-t 2-0"],
  ["time-hh-mm-ss", "--time=01:00:00"],
  ["partition-gpu-typed-gres", "-p gpu --gres=gpu:mi300x:1"],
  ["gpus", "--gpus=2"],
  ["gpus-per-node", "-p gpu --gpus-per-node=1"],
  ["gpus-per-task", "-p gpu -n2 --gpus-per-task=1"],
  ["exclusive", "--exclusive"],
  ["oversubscribe", "--oversubscribe"],
  ["nodelist", "-w n2"],
  ["exclude", "-x n1"],
  ["comment", "--comment=hello"],
  ["nice", "--nice=10"],
  ["contiguous", "--contiguous"],
  ["begin", "--begin=now+60"],
  ["account-qos", "-A root -q normal"],
  ["job-name-long", "-J a-rather-long-job-name"],
  ["chdir", "-D /tmp"],
  ["mincpus", "--mincpus=2"],
  ["cores-per-socket", "--cores-per-socket=2"],
  ["threads-per-core", "--threads-per-core=1"],
  ["mem-0", "--mem=0"],
];

export const options: Group = {
  name: "extra: sbatch options",
  steps: [
    ...OPTIONS.map(([slug, args]) => held(`x-opt-${slug}`, `${args} --wrap=true`)),
    cap("x-opt-reservation-unknown", "sbatch -H --reservation=nosuch --wrap=true"),
    cap("x-opt-account-unknown", "sbatch -H -A nosuch --wrap=true"),
    cap("x-opt-qos-unknown", "sbatch -H -q nosuch --wrap=true"),
    cap("x-opt-nodelist-unknown", "sbatch -H -w n9 --wrap=true"),
    run("scancel -u root; wait_idle"),
  ],
};
