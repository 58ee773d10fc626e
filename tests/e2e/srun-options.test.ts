/**
 * End-to-end srun options and the task environment (issue 21) on the real binary; the
 * expected values are what Slurm 22.05 printed for the same commands
 * (tests/fixtures/srun/options.sh run on the oracle: options-oracle.txt, interrupt-oracle.txt).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "4", "--mem-per-node", "4000", "--gpus-per-node", "0"]);
});
afterAll(() => c?.down());

/** srun through a shell (umask/ulimit set first), in the cluster's environment. */
function shell(script: string, env: Record<string, string> = {}) {
  const r = spawnSync("/bin/bash", ["-c", script], { env: { ...c.env, ...env }, cwd: c.work, encoding: "utf8", timeout: 60_000 });
  return { stdout: r.stdout ?? "", stderr: r.stderr ?? "", code: r.status ?? -1 };
}

describe("srun options", () => {
  it("--prolog/--epilog run on srun's host around the step, with its command and ids (oracle); a failing prolog aborts the step", () => {
    c.write("pro.sh", "#!/bin/bash\necho \"PRO $* job=$SLURM_JOB_ID step=$SLURM_STEP_ID nodes=$SLURM_NODELIST ctx=$SLURM_SCRIPT_CONTEXT\" >&2\nexit ${PRORC:-0}\n");
    c.write("epi.sh", "#!/bin/bash\necho \"EPI $* step=$SLURM_STEPID ctx=$SLURM_SCRIPT_CONTEXT\" >&2\n");
    shell("chmod +x pro.sh epi.sh");
    const r = shell("srun --prolog=./pro.sh --epilog=./epi.sh -N2 echo hi there");
    expect([r.code, r.stdout]).toEqual([0, "hi there\nhi there\n"]);
    expect(r.stderr).toMatch(/^PRO echo hi there job=\d+ step=0 nodes=n\[1-2\] ctx=prolog_srun\nEPI echo hi there step=0 ctx=epilog_srun\n$/);
    const failed = shell("srun --prolog=./pro.sh -n1 echo hi", { PRORC: "3" });
    expect([failed.code, failed.stdout]).toEqual([1, ""]);
    expect(failed.stderr).toContain("srun: error: srun prolog failed rc = 3. Aborting step.\n");
    const missing = shell("srun --prolog=/nonexistent/pro -n1 echo hi");
    expect([missing.code, missing.stdout, missing.stderr]).toEqual([0, "hi\n", "srun: Access denied for /nonexistent/pro: No such file or directory\n"]);
  });

  it("-r/--relative: the step starts at node N of the allocation; Slurm's refusals (oracle)", () => {
    const r = shell("salloc -N2 bash -c 'srun -r1 -n1 bash -c \"echo \\$SLURMD_NODENAME \\$SLURM_NODEID\"; srun -r1 -N2 true; echo rc=$?'");
    expect(r.stdout).toBe("n2 0\nrc=1\n");
    expect(r.stderr).toContain("srun: error: --relative and --nodes option incompatible with count of allocated nodes (1+2>2)\n");
    const outside = shell("srun -r1 hostname");
    expect([outside.code, outside.stderr]).toEqual([1, "srun: fatal: --relative option invalid for job allocation request\n"]);
  });

  it("--chdir and -D run the tasks in that directory", () => {
    const dir = join(c.work, "d1");
    mkdirSync(dir, { recursive: true });
    expect(c.run(["srun", `--chdir=${dir}`, "pwd"]).stdout).toBe(`${dir}\n`);
    expect(c.run(["srun", "-D", dir, "pwd"]).stdout).toBe(`${dir}\n`);
  });

  it("--export names what the tasks get; NONE in a list keeps only SLURM_* (oracle: BAR= FOO=)", () => {
    const listed = shell(`FOO=x srun --export=BAR=1,FOO /bin/bash -c 'echo BAR=$BAR FOO=$FOO HOME=$HOME'`);
    expect(listed.stdout).toBe("BAR=1 FOO=x HOME=\n");
    const none = shell(`FOO=x srun --export=NONE,BAR=1 /bin/bash -c 'echo BAR=$BAR FOO=$FOO'`);
    expect(none.stdout).toBe("BAR= FOO=\n");
    // without PATH exported the command is not found, as slurmstepd's execve says
    const noPath = shell(`srun --export=BAR=1 bash -c true`);
    expect(noPath.stderr).toMatch(/error: execve\(\): bash: No such file or directory/);
    expect(noPath.code).toBe(2);
  });

  it("--test-only prints the start estimate and runs nothing", () => {
    const r = c.run(["srun", "--test-only", "-n2", "touch", "ran"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^srun: Job \d+ to start at \S+ using 2 processors on nodes n1 in partition \S+\n$/);
    expect(spawnSync("test", ["-e", join(c.work, "ran")]).status).toBe(1);
  });

  it("an absent command: slurmstepd's execve line and exit code 2", () => {
    const r = c.run(["srun", "nosuchcmd_xyz"]);
    expect(r.stderr).toMatch(/^slurmstepd-n1: error: execve\(\): nosuchcmd_xyz: No such file or directory\nsrun: error: n1: task 0: Exited with exit code 2\n$/);
    expect(r.code).toBe(2);
  });

  it("a command without execute permission: execve's Permission denied and exit code 13", () => {
    writeFileSync(join(c.work, "notexec.sh"), "echo hi\n", { mode: 0o644 });
    const r = c.run(["srun", "./notexec.sh"]);
    expect(r.stderr).toBe(`slurmstepd-n1: error: execve(): ${c.work}/./notexec.sh: Permission denied\nsrun: error: n1: task 0: Exited with exit code 13\n`);
    expect(r.code).toBe(13);
  });

  it("SLURM_NPROCS and SLURM_NTASKS are read as -n, and set in the tasks", () => {
    expect(c.run(["srun", "-n1", "bash", "-c", "echo NPROCS=$SLURM_NPROCS NTASKS=$SLURM_NTASKS"]).stdout).toBe("NPROCS=1 NTASKS=1\n");
    expect(shell("SLURM_NPROCS=3 srun bash -c 'echo $SLURM_PROCID' | sort").stdout).toBe("0\n1\n2\n");
    expect(shell("SLURM_NTASKS=2 srun bash -c 'echo $SLURM_PROCID' | sort").stdout).toBe("0\n1\n");
    expect(shell("SLURM_OVERCOMMIT=1 srun -n6 bash -c 'echo $SLURM_OVERCOMMIT' | sort -u").stdout).toBe("1\n");
  });

  it("the submitter's umask and soft limits reach every task (oracle: 0027, 1000, 0)", () => {
    const r = shell("umask 027; ulimit -S -n 1000; ulimit -S -c 0; srun -n2 bash -c 'umask; ulimit -S -n; ulimit -S -c' | sort -u; true");
    expect(r.stdout.split("\n").filter(Boolean).sort()).toEqual(["0", "0027", "1000"]);
  });

  it("--task-prolog's exports and prints reach the task; --task-epilog runs after it", async () => {
    const prolog = c.write("tp.sh", "#!/bin/sh\necho export TP=from_prolog\necho print hello-prolog\n");
    const epilog = c.write("te.sh", `#!/bin/sh\necho epilog-ran > ${c.work}/te.out\n`);
    const r = c.run(["srun", `--task-prolog=${prolog}`, `--task-epilog=${epilog}`, "bash", "-c", "echo TP=$TP"]);
    expect(r.stdout).toBe("hello-prolog\nTP=from_prolog\n");
    await eventually("the epilog's file", () => (readFileSafe(join(c.work, "te.out")) === "epilog-ran\n" ? true : undefined));
  });
});

describe("srun -E/--preserve-env inside an allocation", () => {
  it("keeps the allocation's counts where plain srun -n1 recomputes them (oracle: preserve-env-oracle.txt)", async () => {
    const script = c.write("pe.sh", readFileSync(join(__dirname, "../fixtures/srun/preserve-env.sh"), "utf8"));
    const sub = c.run(["sbatch", "--parsable", "-N2", "-n4", "-o", "pe.out", script]);
    expect(sub.code, sub.stderr).toBe(0);
    const { jobEnded } = await import("./cluster.ts");
    await jobEnded(c, sub.stdout.trim());
    const expected = readFileSync(join(__dirname, "../fixtures/srun/preserve-env-oracle.txt"), "utf8");
    expect(readFileSync(join(c.work, "pe.out"), "utf8")).toBe(expected);
  });
});

const readFileSafe = (path: string): string => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};

describe("srun on Ctrl-C", () => {
  it("a first Ctrl-C reports the step; a second within a second aborts it (exit 130)", async () => {
    writeFileSync(join(c.work, "int.err"), "");
    const child = spawn("srun", ["-n2", "sleep", "60"], { env: { ...c.env }, cwd: c.work, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const ended = new Promise<number>((res) => child.on("exit", (code) => res(code ?? -1)));
    await eventually("the step runs", () => (/\.0 /.test(c.run(["squeue", "-s", "-h", "-o", "%i %T"]).stdout) ? true : undefined));
    child.kill("SIGINT");
    await eventually("the step report", () => (stderr.includes(": running") ? true : undefined));
    child.kill("SIGINT");
    expect(await ended).toBe(130);
    const lines = stderr.split("\n").filter(Boolean);
    expect(lines[0]).toBe("srun: interrupt (one more within 1 sec to abort)");
    expect(lines[1]).toMatch(/^srun: StepId=\d+\.0 tasks 0-1: running$/);
    expect(lines.slice(2, 5).map((l) => l.replace(/StepId=\d+\.0/, "StepId=J.0"))).toEqual([
      "srun: sending Ctrl-C to StepId=J.0",
      "srun: forcing job termination",
      "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
    ]);
  });
});
