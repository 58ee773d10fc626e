/**
 * End-to-end: site scripts around jobs on a real local cluster. Prolog and
 * Epilog run as root with the job's variables; TaskProlog's export/unset/print
 * lines reach the batch script and srun tasks; a failing Prolog drains the
 * node and requeues the job held; a failing Epilog drains the node and leaves
 * the job's state alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { startCluster, eventually, jobState, type Cluster } from "./cluster.ts";

let c: Cluster;
let flags = "";

const script = (path: string, body: string) => writeFileSync(path, `#!/bin/sh\n${body}\n`, { mode: 0o755 });

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "2", "--mem-per-node", "2000"]);
  const dir = join(c.dir, "scripts");
  flags = join(c.dir, "flags");
  mkdirSync(dir);
  mkdirSync(flags);
  spawnSync("chmod", ["755", dir]);
  script(join(dir, "prolog"), [
    `/usr/bin/env > ${flags}/prolog.$SLURM_JOB_ID`, `echo "$SLURMD_NODENAME" >> ${flags}/prolog-nodes.$SLURM_JOB_ID`,
    `[ -e ${flags}/fail-prolog ] && exit 3`, `[ -e ${flags}/fail-prolog-$SLURMD_NODENAME ] && exit 4`, "exit 0",
  ].join("\n"));
  script(join(dir, "epilog"), `echo "$SLURM_SCRIPT_CONTEXT $SLURM_JOB_ID $SLURMD_NODENAME" >> ${flags}/epilog.log\n[ -e ${flags}/fail-epilog ] && exit 1\nexit 0`);
  script(join(dir, "taskprolog"), 'echo "export FROM_TASK_PROLOG=$SLURM_SCRIPT_CONTEXT"\necho "print hello from the task prolog"\necho "unset SLURM_JOB_NAME"');
  script(join(dir, "job_submit"), [
    'input=$(cat)',
    'case "$input" in',
    `  *'"name":"forbidden"'*) echo "Jobs named forbidden are not allowed on this cluster" >&2; exit 1;;`,
    `  *'"name":"stampme"'*) echo '{"set":{"comment":"stamped by the site"}}';;`,
    `  *'"name":"badset"'*) echo '{"set":{"cpusPerTask":"many"}}';;`,
    "esac",
    "exit 0",
  ].join("\n"));
  script(join(dir, "prolog_ctld"), `/usr/bin/env > ${flags}/ctld-prolog.$SLURM_JOB_ID\n[ -e ${flags}/fail-ctld ] && exit 1\nexit 0`);
  script(join(dir, "epilog_ctld"), `/usr/bin/env > ${flags}/ctld-epilog.$SLURM_JOB_ID`);
  c.reconfigure([
    `Prolog=${dir}/prolog`, `Epilog=${dir}/epilog`, `TaskProlog=${dir}/taskprolog`, "PrologEpilogTimeout=30",
    `JobSubmitScript=${dir}/job_submit`, `PrologSlurmctld=${dir}/prolog_ctld`, `EpilogSlurmctld=${dir}/epilog_ctld`, "",
  ].join("\n"));
}, 120_000);

afterAll(() => c?.down());

function submit(args: string[]): string {
  const r = c.run(["sbatch", "--parsable", ...args]);
  expect(r.stderr).toBe("");
  return r.stdout.trim();
}

const state = (id: string, want: string) => eventually(`job ${id} ${want}`, () => (jobState(c, id) === want ? true : undefined), 60_000);

describe("job_submit hook", () => {
  it("accepts, changes or rejects submissions as the site's script says", async () => {
    c.write("h.sh", "#!/bin/bash\ntrue\n");
    const rejected = c.run(["sbatch", "-J", "forbidden", "h.sh"]);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toBe("sbatch: error: Batch job submission failed: Jobs named forbidden are not allowed on this cluster\n");
    const stamped = submit(["-J", "stampme", "h.sh"]);
    expect(c.run(["squeue", "-h", "-t", "all", "-j", stamped, "-o", "%k"]).stdout.trim()).toBe("stamped by the site");
    const bad = c.run(["sbatch", "-J", "badset", "h.sh"]);
    expect(bad.stderr).toBe("sbatch: error: Batch job submission failed: job_submit hook cannot set cpusPerTask\n");
    const plain = submit(["-J", "ordinary", "h.sh"]);
    await state(plain, "COMPLETED");
  });
});

describe("PrologSlurmctld and EpilogSlurmctld", () => {
  it("runs them around a batch job with its variables and exit code", async () => {
    c.write("x.sh", "#!/bin/bash\nexit 3\n");
    const id = submit(["x.sh"]);
    await state(id, "FAILED");
    expect(readFileSync(join(flags, `ctld-prolog.${id}`), "utf8")).toContain("SLURM_SCRIPT_CONTEXT=prolog_slurmctld\n");
    const env = await eventually("epilog_slurmctld ran", () => (existsSync(join(flags, `ctld-epilog.${id}`)) ? readFileSync(join(flags, `ctld-epilog.${id}`), "utf8") : undefined));
    for (const line of ["SLURM_SCRIPT_CONTEXT=epilog_slurmctld", `SLURM_JOB_ID=${id}`, "SLURM_JOB_EXIT_CODE=768", "SLURM_JOB_EXIT_CODE2=3:0"]) expect(env).toContain(`${line}\n`);
  });

  it("requeues the job (not held, no node drained) when PrologSlurmctld fails", async () => {
    writeFileSync(join(flags, "fail-ctld"), "");
    c.write("y.sh", "#!/bin/bash\ntrue\n");
    const id = submit(["y.sh"]);
    await eventually("requeued", () => (c.run(["sacct", "-j", id, "-X", "-n", "-P", "-o", "Restarts"]).stdout.trim() !== "0" ? true : undefined));
    rmSync(join(flags, "fail-ctld"));
    await state(id, "COMPLETED");
    expect(c.run(["sinfo", "-R", "-h"]).stdout).not.toContain("Prolog");
  });
});

describe("prolog and epilog", () => {
  it("runs Prolog and Epilog as root with the job's variables, TaskProlog around the script and srun tasks", async () => {
    c.write("t.sh", '#!/bin/bash\necho "batch FTP=$FROM_TASK_PROLOG name=${SLURM_JOB_NAME-unset}"\nsrun bash -c \'echo "step FTP=$FROM_TASK_PROLOG"\'\n');
    const id = submit(["-J", "pe", "t.sh"]);
    await state(id, "COMPLETED");
    const out = readFileSync(join(c.work, `slurm-${id}.out`), "utf8");
    expect(out).toBe("hello from the task prolog\nbatch FTP=prolog_task name=unset\nhello from the task prolog\nstep FTP=prolog_task\n");
    const env = readFileSync(join(flags, `prolog.${id}`), "utf8");
    for (const line of [`SLURM_JOB_ID=${id}`, "SLURM_SCRIPT_CONTEXT=prolog_slurmd", "SLURM_JOB_USER=root", "SLURMD_NODENAME=n1", "SLURM_JOB_NAME=pe"]) {
      expect(env).toContain(`${line}\n`);
    }
    expect(env).not.toMatch(/^PATH=/m); // no search path, as Slurm
    await eventually("epilog ran", () => (existsSync(join(flags, "epilog.log")) && readFileSync(join(flags, "epilog.log"), "utf8").includes(`epilog_slurmd ${id} n1`) ? true : undefined));
  });

  it("drains the node and requeues the job held when the Prolog fails", async () => {
    writeFileSync(join(flags, "fail-prolog"), "");
    c.write("p.sh", "#!/bin/bash\necho ran\n");
    const id = submit(["-w", "n2", "p.sh"]);
    const reason = await eventually("n2 drained", () => {
      const r = c.run(["sinfo", "-R", "-h", "-o", "%E|%N"]).stdout;
      return r.includes("Prolog error|n2") ? r : undefined;
    });
    expect(reason).toContain("Prolog error|n2");
    const held = await eventually("job held", () => {
      const q = c.run(["squeue", "-h", "-j", id, "-o", "%t|%r|%Q"]).stdout.trim();
      return q.startsWith("PD|") ? q : undefined;
    });
    expect(held).toBe("PD|JobHeldAdmin|0");
    expect(existsSync(join(c.work, `slurm-${id}.out`))).toBe(false);
    rmSync(join(flags, "fail-prolog"));
    expect(c.run(["scontrol", "update", "nodename=n2", "state=resume"]).code).toBe(0);
    expect(c.run(["scontrol", "release", id]).code).toBe(0);
    await state(id, "COMPLETED");
    expect(c.run(["sacct", "-j", id, "-X", "-n", "-P", "-o", "Restarts"]).stdout.trim()).toBe("1");
  });

  it("runs Prolog on every node of a 2-node job (the second at its first step there) and Epilog on every node when it ends", async () => {
    c.write("two.sh", "#!/bin/bash\nsrun -N2 -n2 true\n");
    const id = submit(["-N2", "two.sh"]);
    await state(id, "COMPLETED");
    expect(readFileSync(join(flags, `prolog-nodes.${id}`), "utf8").split("\n").filter(Boolean).sort()).toEqual(["n1", "n2"]);
    await eventually("epilog ran on both nodes", () => {
      const log = existsSync(join(flags, "epilog.log")) ? readFileSync(join(flags, "epilog.log"), "utf8") : "";
      return log.includes(`epilog_slurmd ${id} n1`) && log.includes(`epilog_slurmd ${id} n2`) ? true : undefined;
    });
  });

  it("runs the Epilog on every node of the job when it ends, also where no step ran (and no Prolog ran)", async () => {
    c.write("nostep.sh", "#!/bin/bash\ntrue\n");
    const id = submit(["-N2", "nostep.sh"]);
    await state(id, "COMPLETED");
    await eventually("epilog ran on both nodes", () => {
      const log = existsSync(join(flags, "epilog.log")) ? readFileSync(join(flags, "epilog.log"), "utf8") : "";
      return log.includes(`epilog_slurmd ${id} n1`) && log.includes(`epilog_slurmd ${id} n2`) ? true : undefined;
    });
    expect(readFileSync(join(flags, `prolog-nodes.${id}`), "utf8").split("\n").filter(Boolean)).toEqual(["n1"]);
  });

  it("drains the second node and requeues the 2-node job held when the Prolog fails there", async () => {
    writeFileSync(join(flags, "fail-prolog-n2"), "");
    c.write("two-fail.sh", "#!/bin/bash\nsrun -N2 -n2 true\necho after the step\nsleep 30\n");
    const id = submit(["-N2", "two-fail.sh"]);
    await eventually("n2 drained", () => (c.run(["sinfo", "-R", "-h", "-o", "%E|%N"]).stdout.includes("Prolog error|n2") ? true : undefined));
    const held = await eventually("job held", () => {
      const q = c.run(["squeue", "-h", "-j", id, "-o", "%t|%r|%Q"]).stdout.trim();
      return q.startsWith("PD|") ? q : undefined;
    }, 60_000);
    expect(held).toBe("PD|JobHeldAdmin|0");
    expect(c.run(["sinfo", "-R", "-h", "-o", "%E|%N"]).stdout).not.toContain("|n1");
    rmSync(join(flags, "fail-prolog-n2"));
    expect(c.run(["scontrol", "update", "nodename=n2", "state=resume"]).code).toBe(0);
    expect(c.run(["scancel", id]).code).toBe(0);
  });

  it("drains the node when the Epilog fails, and the job keeps its state", async () => {
    writeFileSync(join(flags, "fail-epilog"), "");
    c.write("e.sh", "#!/bin/bash\nexit 0\n");
    const id = submit(["-w", "n1", "e.sh"]);
    await state(id, "COMPLETED");
    await eventually("n1 drained", () => (c.run(["sinfo", "-R", "-h", "-o", "%E|%N"]).stdout.includes("Epilog error|n1") ? true : undefined));
    rmSync(join(flags, "fail-epilog"));
    c.run(["scontrol", "update", "nodename=n1", "state=resume"]);
  });
});

describe("task layout over the nodes (srun -m)", () => {
  it("numbers tasks cyclically with -m cyclic, block by default; SLURM_DISTRIBUTION only when -m is given", async () => {
    c.write("dist.sh", [
      "#!/bin/bash",
      "srun -m cyclic bash -c 'echo cyclic $SLURM_PROCID $SLURMD_NODENAME ${SLURM_DISTRIBUTION-unset}' | sort",
      "srun bash -c 'echo block $SLURM_PROCID $SLURMD_NODENAME ${SLURM_DISTRIBUTION-unset}' | sort",
      "",
    ].join("\n"));
    const id = submit(["-N2", "-n4", "dist.sh"]);
    await state(id, "COMPLETED");
    expect(readFileSync(join(c.work, `slurm-${id}.out`), "utf8").split("\n").filter((l) => /^(cyclic|block) /.test(l))).toEqual([
      "cyclic 0 n1 cyclic", "cyclic 1 n2 cyclic", "cyclic 2 n1 cyclic", "cyclic 3 n2 cyclic",
      "block 0 n1 unset", "block 1 n1 unset", "block 2 n2 unset", "block 3 n2 unset",
    ]);
  });
});

describe("PrologFlags=Alloc", () => {
  it("runs the Prolog on every node at allocation (no step needed); a failure there keeps the script from starting", async () => {
    c.reconfigure("PrologFlags=Alloc\n");
    await eventually("nodes back", () => (c.run(["sinfo", "-h", "-o", "%t"]).stdout.trim().split("\n").every((s) => s === "idle") ? true : undefined), 60_000);
    c.write("alloc.sh", "#!/bin/bash\necho script ran\n");
    const id = submit(["-N2", "alloc.sh"]);
    await state(id, "COMPLETED");
    expect(readFileSync(join(flags, `prolog-nodes.${id}`), "utf8").split("\n").filter(Boolean).sort()).toEqual(["n1", "n2"]);

    writeFileSync(join(flags, "fail-prolog-n2"), "");
    const failing = submit(["-N2", "alloc.sh"]);
    // Pending (reason None) until the pass that starts it, running while the nodes' Prolog runs
    // (a loaded machine shows that window), then requeued held once the Prolog fails there.
    let last = "";
    const held = await eventually("job held", () => {
      last = c.run(["squeue", "-h", "-j", failing, "-o", "%t|%r"]).stdout.trim();
      return last === "PD|JobHeldAdmin" || /^(CG|CD|F)\|/.test(last) ? last : undefined;
    }, 60_000).catch(() => last);
    expect(held).toBe("PD|JobHeldAdmin");
    expect(c.run(["sinfo", "-R", "-h", "-o", "%E|%N"]).stdout).toContain("Prolog error|n2");
    expect(existsSync(join(c.work, `slurm-${failing}.out`)) ? readFileSync(join(c.work, `slurm-${failing}.out`), "utf8") : "").not.toContain("script ran");
    rmSync(join(flags, "fail-prolog-n2"));
    c.run(["scontrol", "update", "nodename=n2", "state=resume"]);
    c.run(["scancel", failing]);
  });
});
