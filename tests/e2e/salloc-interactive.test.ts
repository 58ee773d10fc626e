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
import { spawn, spawnSync } from "node:child_process";
import { BIN, eventually, startCluster, type Cluster } from "./cluster.ts";

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

  it("--no-shell keeps the allocation (named no-shell) after salloc exits; steps join it, scancel ends it", () => {
    const r = c.run(["salloc", "-N1", "--no-shell"]);
    expect([r.code, r.stdout]).toEqual([0, ""]);
    const id = /^salloc: Granted job allocation (\d+)$/m.exec(r.stderr)?.[1] ?? "";
    expect(r.stderr).not.toContain("Relinquishing");
    expect(c.run(["squeue", "-h", "-j", id, "-o", "%j|%T"]).stdout.trim()).toBe("no-shell|RUNNING");
    expect(c.run(["srun", `--jobid=${id}`, "printenv", "SLURM_JOB_ID"]).stdout.trim()).toBe(id);
    c.run(["scancel", id]);
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
      // the interactive step is J.interactive and holds none of the job's CPUs: an --exact step does not wait for it
      'squeue -s -h -o "step=%i %j" | grep interactive | sed "s/=[0-9]*\\./=J./"',
      "srun --exact -w n1 -N1 -n2 echo exact-ran </dev/null | uniq",
      "exit 3",
    ].join("\n");
    const r = sallocOnTerminal("-N2 -n4", `${keys}\n`);
    // --preserve-env: the shell sees the allocation's counts, not its own step's
    expect(r.out).toMatch(/\nat=n1 tty=\/dev\/pts\/\d+ n=4 nn=2\n/);
    expect(r.out).toMatch(/\n 2 on=n1\n 2 on=n2\n/);
    expect(r.out).toMatch(/\nstep=J.interactive bash\n/);
    expect(r.out).toMatch(/\nexact-ran\n/);
    expect(r.out).toMatch(/srun: error: n1: task 0: Exited with exit code 3\nsalloc: Relinquishing job allocation \d+\n$/);
    expect(r.code).toBe(3);
    expect(noJobs()).toBe("");
  });

  it("a command given to salloc is not affected by use_interactive_step", () => {
    const r = c.run(["salloc", "-Q", "-n1", "bash", "-c", 'echo "at=${SLURMD_NODENAME:-here}"']);
    expect(r.stdout).toBe("at=here\n");
  });

  it("salloc terminated (SIGTERM) revokes its allocation; --kill-command signals the command (oracle line)", async () => {
    const salloc = spawn(BIN, ["salloc", "-N1", "--kill-command=TERM", "bash", "-c", "trap 'echo command-got-TERM; exit 0' TERM; while :; do sleep 0.1; done"], {
      env: c.env, cwd: c.work, stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    salloc.stdout.on("data", (b: Buffer) => (out += b.toString()));
    salloc.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((resolve) => salloc.once("exit", (code) => resolve(code)));
    try {
      await eventually("the allocation", () => (/Granted job allocation \d+/.test(err) ? true : undefined), 30_000);
      salloc.kill("SIGTERM");
      expect(await exited).toBe(143);
    } finally {
      salloc.kill("SIGKILL");
    }
    expect(err).toMatch(/salloc: Job allocation \d+ has been revoked\.\n$/);
    await eventually("the command's trap", () => (out.includes("command-got-TERM") ? true : undefined), 10_000);
    await eventually("no job left", () => (noJobs() === "" ? true : undefined), 10_000);
  });

  it("an allocation cancelled from elsewhere: salloc says it was revoked, --kill-command signals the command", async () => {
    const salloc = spawn(BIN, ["salloc", "-N1", "--kill-command=TERM", "bash", "-c", "trap 'echo command-got-TERM; exit 0' TERM; while :; do sleep 0.1; done"], {
      env: c.env, cwd: c.work, stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    salloc.stdout.on("data", (b: Buffer) => (out += b.toString()));
    salloc.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((resolve) => salloc.once("exit", (code) => resolve(code)));
    try {
      const jobId = await eventually("the allocation", () => /Granted job allocation (\d+)/.exec(err)?.[1], 30_000);
      expect(c.run(["scancel", jobId]).code).toBe(0);
      // oracle: the revocation line, then salloc waits for its command and relinquishes nothing
      expect(await exited).toBe(0);
      expect(err).toBe(`salloc: Granted job allocation ${jobId}\nsalloc: Job allocation ${jobId} has been revoked.\n`);
      expect(out).toBe("command-got-TERM\n");
    } finally {
      salloc.kill("SIGKILL");
    }
  });
});
