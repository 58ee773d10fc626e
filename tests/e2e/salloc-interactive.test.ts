/**
 * End-to-end: `salloc` with no command (issue 19, interactive). salloc runs under util-linux
 * `script`, so it has a terminal as a user's login shell has one, and its keystrokes come from a
 * prepared input. Without configuration it starts the user's shell where it runs; with
 * `SallocDefaultCommand=` (the pre-20.11 key) that command; with
 * `LaunchParameters=use_interactive_step` the interactive step: `srun --interactive --preserve-env
 * --pty $SHELL` puts the shell on a pseudo-terminal on the allocation's first node, with the
 * allocation's task count, steps run from it, and the allocation ends with the shell's exit status.
 * salloc reads these keys from the configuration itself, as Slurm's salloc reads slurm.conf.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "2", "--mem-per-node", "2000"]);
});
afterAll(() => c?.down());

/** `salloc ARGS` with no command on a terminal, the shell reading `keys`; output without CRs and terminal escapes. */
function sallocOnTerminal(args: string, keys: string): { out: string; code: number } {
  const env = { ...c.env, SHELL: "/bin/bash" };
  const r = spawnSync("script", ["-eqc", `salloc ${args}`, "/dev/null"], { env, cwd: c.work, input: keys, encoding: "utf8", timeout: 60_000 });
  return { out: (r.stdout ?? "").replace(/\r/g, "").replace(/\x1b\[[?0-9;]*[A-Za-z]/g, ""), code: r.status ?? -1 };
}

const noJobs = () => c.run(["squeue", "-h"]).stdout;

describe("salloc without a command", () => {
  it("starts the user's shell where salloc runs, and the allocation ends with it", () => {
    const r = sallocOnTerminal("-N2 -n4", 'echo "at=${SLURMD_NODENAME:-here} job=${SLURM_JOB_ID:+set} n=$SLURM_NTASKS"\nexit 4\n');
    expect(r.out).toMatch(/\nat=here job=set n=4\n/);
    expect(r.out).toMatch(/salloc: Relinquishing job allocation \d+\n/);
    expect(r.code).toBe(4);
    expect(noJobs()).toBe("");
  });

  it("runs SallocDefaultCommand= when it is set (the key Slurm had before 20.11)", () => {
    appendFileSync(c.conf, 'SallocDefaultCommand="echo default-command ran; exit 5"\n');
    const r = sallocOnTerminal("-n1", "");
    expect(r.out).toMatch(/\ndefault-command ran\n/);
    expect(r.code).toBe(5);
  });

  it("LaunchParameters=use_interactive_step: the shell runs on a terminal on the first node, steps run from it", () => {
    appendFileSync(c.conf, "LaunchParameters=use_interactive_step\n");
    // the inner srun reads /dev/null: a step forwards srun's stdin, which would take the next keys
    const keys = [
      'echo "at=$SLURMD_NODENAME tty=$(tty) n=$SLURM_NTASKS nn=$SLURM_NNODES"',
      'srun -n4 bash -c "echo on=\\$SLURMD_NODENAME" </dev/null | sort | uniq -c | tr -s " "',
      "exit 3",
    ].join("\n");
    const r = sallocOnTerminal("-N2 -n4", `${keys}\n`);
    // --preserve-env: the shell sees the allocation's counts, not its own step's
    expect(r.out).toMatch(/\nat=n1 tty=\/dev\/pts\/\d+ n=4 nn=2\n/);
    expect(r.out).toMatch(/\n 2 on=n1\n 2 on=n2\n/);
    expect(r.out).toMatch(/srun: error: n1: task 0: Exited with exit code 3\nsalloc: Relinquishing job allocation \d+\n$/);
    expect(r.code).toBe(3);
    expect(noJobs()).toBe("");
  });

  it("a command given to salloc is not affected by use_interactive_step", () => {
    const r = c.run(["salloc", "-Q", "-n1", "bash", "-c", 'echo "at=${SLURMD_NODENAME:-here}"']);
    expect(r.stdout).toBe("at=here\n");
  });
});
