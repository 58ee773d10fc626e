/**
 * End-to-end checks of conformance details of srun, scontrol, sacct and salloc
 * (issue 3) that the differential suite compares with real Slurm: srun's
 * message port and the variables naming it, srun -o/-e file patterns,
 * `scontrol show step`, accounting of a running batch job and its step,
 * salloc's environment. Each test waits on conditions, never fixed sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hostname } from "node:os";
import { eventually, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "4", "--cpus-per-node", "4", "--mem-per-node", "4000"]);
});
afterAll(() => c?.down());

/** NAME=value lines of `printenv` output as a map. */
const envOf = (text: string): Record<string, string> =>
  Object.fromEntries(text.split("\n").filter((l) => l.includes("=")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));

describe("srun's message port", () => {
  it("tasks see srun's listener address; every task the same one", () => {
    const r = c.run(["srun", "-N2", "-n2", "-l", "printenv"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const byTask = [0, 1].map((t) => envOf(r.stdout.split("\n").filter((l) => l.startsWith(`${t}: `)).map((l) => l.slice(3)).join("\n")));
    for (const env of byTask) {
      expect(env.SLURM_LAUNCH_NODE_IPADDR).toBe("127.0.0.1");
      expect(env.SLURM_SRUN_COMM_HOST).toBe("127.0.0.1");
      expect(env.SLURM_SRUN_COMM_PORT).toMatch(/^\d+$/);
      expect(env.SLURM_STEP_LAUNCHER_PORT).toBe(env.SLURM_SRUN_COMM_PORT);
    }
    expect(byTask[0]?.SLURM_SRUN_COMM_PORT).toBe(byTask[1]?.SLURM_SRUN_COMM_PORT);
  });

  it("the port is open while the step runs, and exit codes still reach srun", () => {
    // bash's /dev/tcp connects to the port srun named: it answers while the step runs
    const r = c.run(["srun", "bash", "-c", 'exec 3<>/dev/tcp/$SLURM_SRUN_COMM_HOST/$SLURM_SRUN_COMM_PORT && echo open; exit 6']);
    expect(r.stdout).toBe("open\n");
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^srun: error: n\d: task 0: Exited with exit code 6$/m);
  });

  it("SLURM_DISTRIBUTION only with -m (26.x table)", () => {
    expect(c.run(["srun", "-m", "cyclic", "printenv", "SLURM_DISTRIBUTION"]).stdout).toBe("cyclic\n");
    expect(c.run(["srun", "bash", "-c", "echo ${SLURM_DISTRIBUTION-unset}"]).stdout).toBe("unset\n");
  });

  it("an srun inside a step gets its own port, not the outer one", () => {
    const r = c.run(["srun", "bash", "-c", 'echo $SLURM_SRUN_COMM_PORT; srun printenv SLURM_SRUN_COMM_PORT']);
    expect(r.code).toBe(0);
    const [outer, inner] = r.stdout.trim().split("\n");
    expect(outer).toMatch(/^\d+$/);
    expect(inner).toMatch(/^\d+$/);
    expect(inner).not.toBe(outer);
  });
});

describe("srun -o/-e file patterns", () => {
  it("writes one file per task (x-outname-srun-task)", () => {
    mkdirSync(join(c.work, "fp-srun"), { recursive: true });
    const cwd = join(c.work, "fp-srun");
    const r = c.run(["srun", "-n2", "-o", "sr-%t.out", "printenv", "SLURM_PROCID"], { cwd });
    expect(r).toEqual({ stdout: "", stderr: "", code: 0 });
    expect(readdirSync(cwd).sort()).toEqual(["sr-0.out", "sr-1.out"]);
    expect(readFileSync(join(cwd, "sr-0.out"), "utf8")).toBe("0\n");
    expect(readFileSync(join(cwd, "sr-1.out"), "utf8")).toBe("1\n");
  });

  it("-e splits stderr off; a task id shows only that task; none drops stdout", () => {
    const cwd = mkdtempSync(join(c.work, "fp-"));
    const r = c.run(["srun", "-n2", "-o", "o-%j-%t", "-e", "e-%t", "bash", "-c", "echo out$SLURM_PROCID; echo err$SLURM_PROCID >&2"], { cwd });
    expect(r.code).toBe(0);
    const files = readdirSync(cwd).sort();
    expect(files).toHaveLength(4);
    expect(readFileSync(join(cwd, "e-1"), "utf8")).toBe("err1\n");
    expect(readFileSync(join(cwd, files.find((f) => /^o-\d+-0$/.test(f)) ?? "missing"), "utf8")).toBe("out0\n");
    const one = c.run(["srun", "-n3", "-o", "2", "printenv", "SLURM_PROCID"], { cwd });
    expect(one.stdout).toBe("2\n");
    expect(c.run(["srun", "-n2", "-o", "none", "printenv", "SLURM_PROCID"], { cwd }).stdout).toBe("");
  });

  it("-i gives each task its own file as stdin", () => {
    const cwd = mkdtempSync(join(c.work, "fi-"));
    writeFileSync(join(cwd, "in-0"), "zero\n");
    writeFileSync(join(cwd, "in-1"), "one\n");
    const r = c.run(["srun", "-n2", "-l", "-i", "in-%t", "cat"], { cwd });
    expect(r.stderr).toBe("");
    expect(r.stdout.split("\n").sort().join("\n")).toBe("\n0: zero\n1: one");
    const missing = c.run(["srun", "-i", "nosuch", "cat"], { cwd });
    expect(missing.code).not.toBe(0);
  });
});

describe("a running batch job with an srun step", () => {
  it("scontrol show step and sacct show the step with the job's CPUs, and the .batch step (x-scontrol-show-step, x-sacct-running)", async () => {
    const id = c.run(["sbatch", "--parsable", "-J", "run1", "-n2", "--time=30", "--wrap=srun -n1 sleep 300"]).stdout.trim();
    expect(id).toMatch(/^\d+$/);
    await eventually("step 0 running", () => (c.run(["squeue", "-h", "-s", "-j", id, "-o", "%i"]).stdout.includes(`${id}.0`) ? true : undefined), 60_000);
    const show = c.run(["scontrol", "show", "step", `${id}.0`]);
    expect(show.code).toBe(0);
    const lines = show.stdout.split("\n");
    expect(lines[0]).toMatch(new RegExp(`^StepId=${id}\\.0 UserId=\\d+ StartTime=\\S+ TimeLimit=00:30:00$`));
    expect(lines.slice(1, 6)).toEqual([
      "   State=RUNNING Partition=debug NodeList=n1",
      "   Nodes=1 CPUs=2 Tasks=1 Name=sleep Network=(null)",
      "   TRES=cpu=2,mem=512M,node=1",
      "   ResvPorts=(null)",
      "   CPUFreqReq=Default Dist=Cyclic",
    ]);
    expect(lines[6]).toMatch(new RegExp(`^   SrunHost:Pid=${hostname()}:\\d+$`));
    const acct = c.run(["sacct", "-j", id, "-n", "-P", "-o", "JobID,JobName,State,AllocCPUS,NodeList"]);
    expect(acct.stdout.trim().split("\n")).toEqual([
      `${id}|run1|RUNNING|2|n1`,
      `${id}.batch|batch|RUNNING|2|n1`,
      `${id}.0|sleep|RUNNING|2|n1`,
    ]);
    c.run(["scancel", id]);
  });
});

describe("options that were ignored", () => {
  const FIELDS = "%j|%D|%C|%c|%h|%O";
  const held = (args: string[]) => {
    const r = c.run(["sbatch", "-H", "--parsable", ...args, "--wrap=true"]);
    expect(r.stderr).toBe("");
    return c.run(["squeue", "-h", "-j", r.stdout.trim(), "-o", FIELDS]).stdout.trim();
  };

  it("--oversubscribe, --contiguous, --mincpus and --cores-per-socket are taken, shown and placed by (x-opt-*)", async () => {
    expect(held(["--oversubscribe"])).toBe("wrap|1|1|1|YES|0");
    expect(held(["--contiguous"])).toBe("wrap|1|1|1|OK|1");
    expect(held(["--mincpus=2"])).toBe("wrap|1|1|2|OK|0");
    expect(held(["--cores-per-socket=2"])).toBe("wrap|1|1|1|OK|0");
    expect(held(["--oversubscribe", "--exclusive"])).toBe("wrap|1|1|1|NO|0");
    const never = c.run(["sbatch", "--cores-per-socket=64", "--wrap=true"]);
    // oracle 22.05: `sbatch --cores-per-socket=64` names the cause first
    expect(never.stderr).toBe("sbatch: error: Socket, core and/or thread specification can not be satisfied\nsbatch: error: Batch job submission failed: Requested node configuration is not available\n");
    const id = c.run(["sbatch", "--parsable", "--mincpus=3", "--wrap=sleep 30"]).stdout.trim();
    const alloc = await eventually("mincpus job running", () => {
      const r = c.run(["squeue", "-h", "-j", id, "-o", "%T|%C"]).stdout.trim();
      return r.startsWith("RUNNING") ? r : undefined;
    }, 30_000);
    expect(alloc).toBe("RUNNING|3");
    expect(c.run(["scontrol", "show", "job", id]).stdout).toMatch(/MinCPUsNode=3 /);
    c.run(["scancel", "-u", process.env.USER ?? "root"]);
  });
});

describe("controller-side details", () => {
  it("--kill-on-invalid-dep=yes cancels a job whose dependency can never be met (x-dep-kill-on-invalid)", async () => {
    const bad = c.run(["sbatch", "--parsable", "--wrap=exit 1"]).stdout.trim();
    await eventually("bad job failed", () => (c.run(["sacct", "-n", "-X", "-P", "-j", bad, "-o", "State"]).stdout.trim() === "FAILED" ? true : undefined), 30_000);
    const kill = c.run(["sbatch", "--parsable", "-J", "killdep", "--kill-on-invalid-dep=yes", `--dependency=afterok:${bad}`, "--wrap=true"]).stdout.trim();
    const keep = c.run(["sbatch", "--parsable", "-J", "keep", `--dependency=afterok:${bad}`, "--wrap=true"]).stdout.trim();
    const shown = await eventually("killdep cancelled", () => {
      const r = c.run(["squeue", "-h", "-t", "all", "-j", kill, "-o", "%j|%T|%r"]).stdout.trim();
      return r.includes("CANCELLED") ? r : undefined;
    }, 30_000);
    expect(shown).toBe("killdep|CANCELLED|DependencyNeverSatisfied");
    expect(c.run(["sacct", "-X", "-n", "-P", "-j", kill, "-o", "State,Reason"]).stdout.trim()).toBe("CANCELLED|None");
    expect(c.run(["squeue", "-h", "-j", keep, "-o", "%T|%r"]).stdout.trim()).toBe("PENDING|DependencyNeverSatisfied");
    c.run(["scancel", keep]);
  });

  it("scontrol update ArrayTaskThrottle changes a pending array's throttle (x-array-update-throttle)", () => {
    const a = c.run(["sbatch", "-H", "--parsable", "--array=1-10%3", "--wrap=true"]).stdout.trim();
    expect(c.run(["scontrol", "update", `JobId=${a}`, "ArrayTaskThrottle=2"])).toEqual({ stdout: "", stderr: "", code: 0 });
    expect(c.run(["squeue", "-h", "-j", a, "-o", "%i"]).stdout).toBe(`${a}_[1-10%2]\n`);
    c.run(["scancel", a]);
  });

  it("scontrol show job <not an id> answers as 22.05 (x-err-scontrol-show-job-garbage)", () => {
    expect(c.run(["scontrol", "show", "job", "abc"])).toEqual({ stdout: "", stderr: "scontrol_print_job error: Invalid job id specified\n", code: 1 });
  });
});
