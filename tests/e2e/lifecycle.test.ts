/**
 * End-to-end: a job's whole life on a real local cluster (compiled binary,
 * spurctld + 4 spurd on loopback): submit, squeue, run, sacct, multi-node with
 * srun, arrays, dependencies, cancel, GPU environment, bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { startCluster, eventually, jobState, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "4", "--cpus-per-node", "4", "--mem-per-node", "4000", "--gpus-per-node", "8", "--gpu-model", "mi300x"]);
});
afterAll(() => c?.down());

const submit = (args: string[]): string => {
  const r = c.run(["sbatch", "--parsable", ...args]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.trim();
};

const finished = (id: string, want = "COMPLETED") =>
  eventually(`job ${id} ${want}`, () => (jobState(c, id) === want ? true : undefined));

describe("batch job lifecycle", () => {
  it("submits, shows in squeue, runs, and shows in sacct", async () => {
    c.write("hello.sh", "#!/bin/bash\n#SBATCH -J hello\necho \"id=$SLURM_JOB_ID node=$SLURMD_NODENAME list=$SLURM_JOB_NODELIST\"\nsleep 1\n");
    const r = c.run(["sbatch", "hello.sh"]);
    expect(r.code).toBe(0);
    const id = /^Submitted batch job (\d+)\n$/.exec(r.stdout)?.[1];
    expect(id).toBeDefined();
    const q = c.run(["squeue"]);
    expect(q.stdout.split("\n")[0]).toBe("             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)");
    expect(q.stdout).toContain(" hello ");
    await finished(id!);
    const out = readFileSync(join(c.work, `slurm-${id}.out`), "utf8");
    expect(out).toBe(`id=${id} node=n1 list=n1\n`);
    const acct = c.run(["sacct", "-j", id!, "-P", "-n", "-o", "JobID,JobName,State,ExitCode"]);
    expect(acct.stdout).toContain(`${id}|hello|COMPLETED|0:0`);
    expect(acct.stdout).toContain(`${id}.batch|batch|COMPLETED|0:0`);
  });

  it("runs a multi-node script once, and srun inside fans out to every node", async () => {
    c.write("multi.sh", "#!/bin/bash\n#SBATCH -N2 --ntasks-per-node=2\necho batch on $SLURMD_NODENAME\nsrun -l bash -c 'echo $SLURM_PROCID $SLURMD_NODENAME $SLURM_STEP_NUM_TASKS' | sort\n");
    const id = submit(["multi.sh"]);
    await finished(id);
    const out = readFileSync(join(c.work, `slurm-${id}.out`), "utf8").split("\n");
    expect(out[0]).toMatch(/^batch on n\d$/);
    const lines = out.slice(1).filter(Boolean);
    expect(lines.map((l) => l.replace(/ n\d /, " N "))).toEqual(["0: 0 N 4", "1: 1 N 4", "2: 2 N 4", "3: 3 N 4"]);
    const nodeOf = (i: number) => lines[i]?.split(" ")[2];
    expect(nodeOf(0)).toBe(nodeOf(1));
    expect(nodeOf(2)).toBe(nodeOf(3));
    expect(nodeOf(0)).not.toBe(nodeOf(2));
  });

  it("runs array tasks with their own ids and output files", async () => {
    const id = submit(["--array=1-3", "--wrap", "echo task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_JOB_ID"]);
    for (const t of [1, 2, 3]) {
      const path = join(c.work, `slurm-${id}_${t}.out`);
      const text = await eventually(`array output ${t}`, () => (existsSync(path) && readFileSync(path, "utf8").length > 0 ? readFileSync(path, "utf8") : undefined));
      expect(text).toBe(`task ${t} of ${id}\n`);
    }
    await eventually("all array tasks done", () => {
      const r = c.run(["sacct", "-j", id, "-X", "-n", "-P", "-o", "JobID,State"]);
      const rows = r.stdout.trim().split("\n");
      return rows.length === 3 && rows.every((l) => l.endsWith("|COMPLETED")) ? rows : undefined;
    });
  });

  it("holds dependants until afterok is met and marks afterok on a failure as never satisfied", async () => {
    const first = submit(["--wrap", "sleep 2"]);
    const ok = submit([`--dependency=afterok:${first}`, "--wrap", "true"]);
    const bad = submit(["--wrap", "exit 3"]);
    const never = submit([`--dependency=afterok:${bad}`, "-J", "never", "--wrap", "true"]);
    expect(c.run(["squeue", "-h", "-j", ok, "-o", "%r"]).stdout.trim()).toBe("Dependency");
    await finished(ok);
    await finished(bad, "FAILED");
    expect(c.run(["sacct", "-j", bad, "-X", "-n", "-P", "-o", "ExitCode"]).stdout.trim()).toBe("3:0");
    await eventually("never satisfied", () => (c.run(["squeue", "-h", "-j", never, "-o", "%r"]).stdout.trim() === "DependencyNeverSatisfied" ? true : undefined));
    c.run(["scancel", never]);
  });

  it("cancels a running job", async () => {
    const id = submit(["--wrap", "sleep 300"]);
    await eventually("running", () => (c.run(["squeue", "-h", "-j", id, "-o", "%T"]).stdout.trim() === "RUNNING" ? true : undefined));
    expect(c.run(["scancel", id]).code).toBe(0);
    await finished(id, "CANCELLED");
  });

  it("gives GPU jobs their devices in the visible-device variables", async () => {
    const script = "#!/bin/bash\necho CUDA=$CUDA_VISIBLE_DEVICES ROCR=$ROCR_VISIBLE_DEVICES GPUS=$SLURM_JOB_GPUS ON=$SLURM_GPUS_ON_NODE\nsleep 3\n";
    c.write("gpu.sh", script);
    const a = submit(["-p", "gpu", "-w", "n4", "--gres=gpu:mi300x:2", "gpu.sh"]);
    const b = submit(["-p", "gpu", "-w", "n4", "--gres=gpu:2", "gpu.sh"]);
    await finished(a);
    await finished(b);
    expect(readFileSync(join(c.work, `slurm-${a}.out`), "utf8")).toBe("CUDA=0,1 ROCR=0,1 GPUS=0,1 ON=2\n");
    expect(readFileSync(join(c.work, `slurm-${b}.out`), "utf8")).toBe("CUDA=2,3 ROCR=2,3 GPUS=2,3 ON=2\n");
  });

  it("rejects bad requests with Slurm's messages and creates nothing", () => {
    const before = c.run(["squeue", "-h"]).stdout;
    const p = c.run(["sbatch", "-p", "nosuch", "--wrap=true"]);
    expect(p.code).toBe(1);
    expect(p.stderr).toBe("sbatch: error: invalid partition specified: nosuch\nsbatch: error: Batch job submission failed: Invalid partition name specified\n");
    const g = c.run(["sbatch", "--gres=gpu:99", "--wrap=true"]);
    expect(g.code).toBe(1);
    expect(g.stderr).toBe("sbatch: error: Batch job submission failed: Requested node configuration is not available\n");
    expect(c.run(["squeue", "-h"]).stdout).toBe(before);
  });

  it("runs srun on its own allocation and returns the task exit code", () => {
    const r = c.run(["srun", "-N2", "-l", "hostname"]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").filter(Boolean).map((l) => l.slice(0, 3)).sort()).toEqual(["0: ", "1: "]);
    const fail = c.run(["srun", "bash", "-c", "exit 7"]);
    expect(fail.code).toBe(7);
    expect(fail.stderr).toMatch(/^srun: error: n\d: task 0: Exited with exit code 7$/m);
    const killed = c.run(["srun", "bash", "-c", "kill -9 $$"]);
    expect(killed.code).toBe(137);
    expect(killed.stderr).toMatch(/^srun: error: n\d: task 0: Killed$/m);
    expect(killed.stderr).toMatch(/^srun: Force Terminated StepId=\d+\.0$/m);
    const missing = c.run(["srun", "/nonexistent/cmd"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^slurmstepd-n\d: error: execve\(\): \/nonexistent\/cmd: No such file or directory$/m);
  });

  it("salloc runs a command inside an allocation and releases it", () => {
    const r = c.run(["salloc", "-N2", "bash", "-c", "echo $SLURM_JOB_NUM_NODES $SLURM_JOB_NODELIST; srun hostname | wc -l"]);
    expect(r.code).toBe(0);
    const id = /Granted job allocation (\d+)/.exec(r.stderr)?.[1];
    expect(id).toBeDefined();
    expect(r.stderr).toContain(`salloc: Relinquishing job allocation ${id}`);
    expect(r.stdout).toMatch(/^2 n\[\d-\d\]\n2\n$/);
    expect(jobState(c, id!)).toBe("COMPLETED");
  });
});
