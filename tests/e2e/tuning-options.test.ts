/**
 * End-to-end: options Spur once dropped with a warning, on a real local cluster. The batch
 * script's environment carries what Slurm 22.05's sbatch exports for --profile, --acctg-freq,
 * --cpu-freq, --gpu-freq, --mem-bind and -B (values seen on the oracle with `env | grep SLURM`),
 * srun's tasks their step form, scontrol shows the record (CPU_max_freq=, TresFreq=, Network=,
 * SpreadJob=, Socks/Node=); --spread-job puts 3 tasks on 3 nodes, --use-min-nodes a range on its
 * minimum; --no-kill keeps a job running when a node other than its batch host dies.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, jobEnded, jobState, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "3", "--cpus-per-node", "2", "--mem-per-node", "2000", "--slurmd-timeout", "4"]);
});
afterAll(() => c?.down());

const GREP = "env | grep -E '^SLURM_(PROFILE|ACCTG_FREQ|CPU_FREQ_REQ|GPU_FREQ|MEM_BIND[A-Z_]*|NTASKS|THREADS_PER_CORE)=' | sort";

const outOf = (name: string) => readFileSync(join(c.work, name), "utf8");

describe("tuning options", () => {
  it("the batch script's and srun's tasks' environment, and scontrol's record", async () => {
    const script = c.write("tuned.sh", [
      "#!/bin/bash",
      "#SBATCH --profile=task,energy --acctg-freq=task=10 --cpu-freq=low-high:performance",
      "#SBATCH --gpu-freq=high --mem-bind=verbose,local --network=sn_all -B 1:2:1",
      GREP,
      "echo ---",
      `srun -n1 --cpu-freq=high bash -c 'env | grep -E "^SLURM_(CPU_FREQ_REQ|MEM_BIND[A-Z_]*)=" | sort'`,
    ].join("\n"));
    const sub = c.run(["sbatch", "--parsable", "--hold", "-o", "tuned.out", script]);
    expect(sub.code, sub.stderr).toBe(0);
    // the one part not done is said once: memory is not bound
    expect(sub.stderr).toBe("sbatch: warning: --mem-bind: Spur does not bind tasks' memory to NUMA nodes (SLURM_MEM_BIND is set)\n");
    const id = sub.stdout.trim();
    const show = c.run(["scontrol", "show", "job", id]).stdout;
    expect(show).toContain("   CPU_min_freq=Low CPU_max_freq=High Governor=Performance\n   Power=\n");
    expect(show).toContain("TresFreq=gpu:high");
    expect(show).toContain(" Network=sn_all\n");
    expect(show).toContain("NumTasks=2 CPUs/Task=1 ReqB:S:C:T=0:0:2:1");
    expect(show).toContain("Socks/Node=1 ");
    c.run(["scontrol", "release", id]);
    expect(await jobEnded(c, id)).toBe("COMPLETED");
    expect(outOf("tuned.out")).toBe([
      "SLURM_ACCTG_FREQ=task=10",
      "SLURM_CPU_FREQ_REQ=Low-High:Performance",
      "SLURM_GPU_FREQ=high",
      "SLURM_MEM_BIND=verbose,local",
      "SLURM_MEM_BIND_VERBOSE=verbose",
      "SLURM_NTASKS=2",
      "SLURM_PROFILE=Energy,Task",
      "SLURM_THREADS_PER_CORE=1",
      "---",
      // srun: its own --cpu-freq, the job's --mem-bind in the step form (oracle: srun --mem-bind=v,local)
      "SLURM_CPU_FREQ_REQ=High",
      "SLURM_MEM_BIND=verbose,local",
      "SLURM_MEM_BIND_LIST=",
      "SLURM_MEM_BIND_TYPE=local",
      "SLURM_MEM_BIND_VERBOSE=verbose",
      "",
    ].join("\n"));
  });

  it("--spread-job puts 3 one-CPU tasks on 3 nodes (without it: 2), and scontrol says SpreadJob=Yes", async () => {
    const spread = c.run(["sbatch", "--parsable", "--spread-job", "-n3", "-o", "spread.out", "--wrap", "echo $SLURM_JOB_NODELIST"]);
    expect(spread.stderr).toBe("");
    expect(c.run(["scontrol", "show", "job", spread.stdout.trim()]).stdout).toContain("\n   SpreadJob=Yes\n");
    expect(await jobEnded(c, spread.stdout.trim())).toBe("COMPLETED");
    const packed = c.run(["sbatch", "--parsable", "-n3", "-o", "packed.out", "--wrap", "echo $SLURM_JOB_NODELIST"]);
    expect(packed.stderr).toBe("");
    expect(await jobEnded(c, packed.stdout.trim())).toBe("COMPLETED");
    expect(outOf("spread.out")).toBe("n[1-3]\n");
    expect(outOf("packed.out")).toBe("n[1-2]\n");
  });

  it("--use-min-nodes: a free -N 1-3 range takes one node (without it: three)", async () => {
    const few = c.run(["sbatch", "--parsable", "--use-min-nodes", "-N", "1-3", "-o", "few.out", "--wrap", "echo $SLURM_JOB_NODELIST"]);
    expect(few.stderr).toBe("");
    expect(await jobEnded(c, few.stdout.trim())).toBe("COMPLETED");
    const many = c.run(["sbatch", "--parsable", "-N", "1-3", "-o", "many.out", "--wrap", "echo $SLURM_JOB_NODELIST"]);
    expect(await jobEnded(c, many.stdout.trim())).toBe("COMPLETED");
    expect([outOf("few.out"), outOf("many.out")]).toEqual(["n1\n", "n[1-3]\n"]);
  });

  it("--no-kill: the job runs on without a dead node that is not its batch host", async () => {
    const sub = c.run(["sbatch", "--parsable", "--no-kill", "-w", "n[1-3]", "-o", "nokill.out", "--wrap", "echo started; sleep 15; echo survived"]);
    expect(sub.stderr).toBe("");
    const id = sub.stdout.trim();
    await eventually("started", () => (existsSync(join(c.work, "nokill.out")) && outOf("nokill.out").startsWith("started") ? true : undefined));
    process.kill(c.pid("spurd-n3"), "SIGKILL");
    await eventually("n3 down", () => (c.run(["sinfo", "-h", "-n", "n3", "-o", "%t"]).stdout.trim() === "down*" ? true : undefined), 30_000);
    expect(c.run(["squeue", "-h", "-j", id, "-o", "%T %D %N"]).stdout.trim()).toBe("RUNNING 2 n[1-2]");
    expect(await jobEnded(c, id)).toBe("COMPLETED");
    expect(outOf("nokill.out")).toBe("started\nsurvived\n");
    c.startDaemon("spurd-n3", ["spurd", "-N", "n3", "--conf", c.conf]);
    await eventually("n3 back", () => (c.run(["sinfo", "-h", "-n", "n3", "-o", "%t"]).stdout.trim() === "idle" ? true : undefined), 30_000);
    expect(jobState(c, id)).toBe("COMPLETED");
  });
});
