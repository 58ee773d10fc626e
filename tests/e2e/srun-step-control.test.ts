/**
 * End-to-end: srun's controls of a running step that launchers (mpirun's daemons, hydra) and
 * users rely on, with Slurm 22.05's lines (recorded on the oracle): -K/--kill-on-bad-exit ends the
 * step when a task fails, -W/--wait bounds how long the others may outlive the first exit,
 * -X/--disable-status passes Ctrl-C to the tasks, --quit-on-interrupt ends the step on the first one, and a reader that goes away (`srun ... | head`)
 * neither kills srun nor leaves its allocation behind. Waits on conditions, never fixed sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { BIN, eventually, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "2", "--mem-per-node", "2000"]);
});
afterAll(() => c?.down());

/** Shell text run as the user would type it (the cluster's commands on PATH). */
function sh(script: string): { stdout: string; stderr: string; code: number } {
  const r = spawnSync("bash", ["-c", script], { env: c.env, cwd: c.work, encoding: "utf8", timeout: 120_000 });
  return { stdout: r.stdout ?? "", stderr: r.stderr ?? "", code: r.status ?? -1 };
}

describe("srun features launchers rely on", () => {
  it("-K/--kill-on-bad-exit: the first failed task terminates the step (oracle lines and status 143)", () => {
    const script = "if [ $SLURM_PROCID = 0 ]; then exit 3; fi; sleep 60";
    const r = c.run(["srun", "-K", "-N2", "-n2", "bash", "-c", script]);
    expect(r.stderr.replace(/StepId=\d+\.\d+/g, "StepId=J.S")).toBe([
      "srun: error: n1: task 0: Exited with exit code 3",
      "srun: launch/slurm: _step_signal: Terminating StepId=J.S",
      "srun: error: n2: task 1: Terminated",
      "srun: Force Terminated StepId=J.S",
      "",
    ].join("\n"));
    expect(r.code).toBe(143);
    // -K0 turns it off: the other task ends on its own
    const off = c.run(["srun", "-K0", "-N2", "-n2", "bash", "-c", "if [ $SLURM_PROCID = 0 ]; then exit 3; fi; sleep 0.5"]);
    expect([off.stderr, off.code]).toEqual(["srun: error: n1: task 0: Exited with exit code 3\n", 3]);
  });

  it("-X/--disable-status: Ctrl-C goes to the tasks as SIGINT (oracle line)", async () => {
    const task = 'trap "echo got-INT; exit 7" INT; echo ready; sleep 60 & wait';
    const srun = spawn(BIN, ["srun", "-X", "-N1", "-n2", "bash", "-c", task], { env: c.env, cwd: c.work, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    srun.stdout.on("data", (b: Buffer) => (out += b.toString()));
    srun.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((resolve) => srun.once("exit", (code) => resolve(code)));
    try {
      await eventually("both tasks ready", () => (out.split("ready").length === 3 ? true : undefined), 30_000);
      srun.kill("SIGINT");
      expect(await exited).toBe(7);
    } finally {
      srun.kill("SIGKILL");
    }
    expect(out).toBe("ready\nready\ngot-INT\ngot-INT\n");
    expect(err.replace(/StepId=\d+\.\d+/, "StepId=J.S")).toBe("srun: sending Ctrl-C to StepId=J.S\nsrun: error: n1: tasks 0-1: Exited with exit code 7\n");
  });

  it("--quit-on-interrupt: the first Ctrl-C ends the step (oracle lines)", async () => {
    const srun = spawn(BIN, ["srun", "--quit-on-interrupt", "-N1", "-n2", "bash", "-c", "echo ready; sleep 60"], { env: c.env, cwd: c.work, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    srun.stdout.on("data", (b: Buffer) => (out += b.toString()));
    srun.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((resolve) => srun.once("exit", (code) => resolve(code)));
    try {
      await eventually("both tasks ready", () => (out.split("ready").length === 3 ? true : undefined), 30_000);
      srun.kill("SIGINT");
      expect(await exited).toBe(130);
    } finally {
      srun.kill("SIGKILL");
    }
    expect(err.replace(/StepId=\d+\.\d+/, "StepId=J.S").split("\n").slice(0, 3)).toEqual([
      "srun: sending Ctrl-C to StepId=J.S",
      "srun: forcing job termination",
      "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
    ]);
  });

  it("-W/--wait: SEC seconds after the first task exits the others are killed (oracle lines, status 137)", () => {
    const r = c.run(["srun", "-W", "1", "-N2", "-n2", "bash", "-c", "[ $SLURM_PROCID = 0 ] && exit 0; sleep 60"]);
    expect(r.stderr.replace(/StepId=\d+\.\d+/g, "StepId=J.S")).toBe([
      "srun: First task exited 1s ago",
      "srun: StepId=J.S task 1: running",
      "srun: StepId=J.S task 0: exited",
      "srun: launch/slurm: _step_signal: Terminating StepId=J.S",
      "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
      "srun: error: n2: task 1: Killed",
      "",
    ].join("\n"));
    expect(r.code).toBe(137);
  });
});

describe("srun whose reader went away", () => {
  it("keeps running the step, drops the output and releases its allocation (oracle: exit 0)", () => {
    const r = sh("srun -n1 bash -c 'seq 1 20000; echo done > pipe-done' | head -1; echo rc=${PIPESTATUS[0]}; cat pipe-done; squeue -h | wc -l");
    expect(r.stdout).toBe("1\nrc=0\ndone\n0\n");
  });
});
