/**
 * SLURM_HOSTFILE for sbatch and salloc on the real binary (issue 21), against what Slurm
 * 22.05 did with the file "n2 n2 n1 n3" on the oracle's shape (4 nodes of 4 CPUs): the job
 * requires the file's nodes (ReqNodeList=n[1-3], a task on each without -n); the file's entries
 * reach the job as SLURM_ARBITRARY_NODELIST and SLURM_TASKS_PER_NODE counts them per node (a
 * batch script gets none when they are not its task count, salloc refuses); too few entries and a
 * missing file are refused before anything is submitted; srun reads it whatever -m says.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, jobEnded, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;
let hosts = "";

beforeAll(() => {
  c = startCluster(["--nodes", "4", "--cpus-per-node", "4", "--mem-per-node", "4000", "--gpus-per-node", "0"]);
  hosts = c.write("hosts", "n2\nn2\nn1\nn3\n");
});
afterAll(() => c?.down());

const field = (text: string, name: string): string => new RegExp(`(?:^|\\s)${name}=(\\S*)`).exec(text)?.[1] ?? "?";

function spur(cmd: string[], env: Record<string, string>): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd[0] ?? "", cmd.slice(1), { env: { ...c.env, ...env }, cwd: c.work, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

describe("sbatch with SLURM_HOSTFILE", () => {
  it.each([
    ["-m arbitrary", "n[1-3]", "3", "3"],
    ["-n4", "n[1-3]", "3", "4"],
    // three entries read (n2 n2 n1), two tasks: the -N maximum is capped by the task count as
    // the oracle caps it for "-N1-3 -n1" (NumNodes=1-1, tests/fixtures/layout/oracle-layout.tsv)
    ["-N1-3", "n[1-2]", "2-2", "2"],
  ])("sbatch %s: ReqNodeList=%s NumNodes=%s NumTasks=%s", (args, req, nodes, tasks) => {
    const sub = spur(["sbatch", "--hold", "--parsable", ...args.split(" "), "--wrap=true"], { SLURM_HOSTFILE: hosts });
    expect(sub.code, sub.stderr).toBe(0);
    const id = sub.stdout.trim();
    const show = c.run(["scontrol", "-o", "show", "job", id]).stdout;
    c.run(["scancel", id]);
    expect([field(show, "ReqNodeList"), field(show, "NumNodes"), field(show, "NumTasks")]).toEqual([req, nodes, tasks]);
  });

  it("-w wins over the file", () => {
    const sub = spur(["sbatch", "--hold", "--parsable", "-w", "n4", "--wrap=true"], { SLURM_HOSTFILE: hosts });
    const id = sub.stdout.trim();
    const show = c.run(["scontrol", "-o", "show", "job", id]).stdout;
    c.run(["scancel", id]);
    expect(field(show, "ReqNodeList")).toBe("n4");
  });

  it("the batch script runs on the file's nodes; its SLURM_TASKS_PER_NODE counts the file's entries per node, none when they are not the task count", async () => {
    const show = "echo nodes=$SLURM_JOB_NODELIST ntasks=$SLURM_NTASKS tpn=${SLURM_TASKS_PER_NODE-unset} list=$SLURM_ARBITRARY_NODELIST";
    const three = spur(["sbatch", "--parsable", "-o", "hf3.out", "--wrap", show], { SLURM_HOSTFILE: hosts });
    const four = spur(["sbatch", "--parsable", "-n4", "-o", "hf4.out", "--wrap", show], { SLURM_HOSTFILE: hosts });
    expect([three.code, four.code], three.stderr + four.stderr).toEqual([0, 0]);
    await jobEnded(c, three.stdout.trim());
    await jobEnded(c, four.stdout.trim());
    expect(readFileSync(join(c.work, "hf3.out"), "utf8").trim()).toBe("nodes=n[1-3] ntasks=3 tpn=unset list=n[2,2,1,3]");
    expect(readFileSync(join(c.work, "hf4.out"), "utf8").trim()).toBe("nodes=n[1-3] ntasks=4 tpn=1,2,1 list=n[2,2,1,3]");
  });

  it("-n4 lays its CPUs out over the file's nodes in node order (oracle: 2 on n1, 1 on n2 and n3)", async () => {
    const sub = spur(["sbatch", "--parsable", "-n4", "-o", "/dev/null", "--wrap", "sleep 30"], { SLURM_HOSTFILE: hosts });
    expect(sub.code, sub.stderr).toBe(0);
    const id = sub.stdout.trim();
    const show = await eventually("the job runs", () => {
      const text = c.run(["scontrol", "-d", "show", "job", id]).stdout;
      return /JobState=RUNNING/.test(text) ? text : undefined;
    });
    c.run(["scancel", id]);
    expect([field(show, "NodeList"), field(show, "NumCPUs"), field(show, "ReqNodeList")]).toEqual(["n[1-3]", "4", "n[1-3]"]);
    expect(show).toMatch(/Nodes=n1 CPU_IDs=0-1 /);
    expect(show).toMatch(/Nodes=n\[2-3\] CPU_IDs=0 /);
  });

  it("too few entries, a missing file and an empty one are refused with exit 1", () => {
    const few = spur(["sbatch", "-n6", "--wrap=true"], { SLURM_HOSTFILE: hosts });
    expect([few.code, few.stdout, few.stderr]).toEqual([1, "", "sbatch: error: Too few NodeNames in Slurm Hostfile\nsbatch: error: Failure getting NodeNames from hostfile\n"]);
    const missing = spur(["sbatch", "--wrap=true"], { SLURM_HOSTFILE: join(c.work, "nope") });
    expect([missing.code, missing.stderr]).toEqual([1, `sbatch: error: slurm_allocate_resources error opening file ${join(c.work, "nope")}, No such file or directory\nsbatch: error: Failure getting NodeNames from hostfile\n`]);
    const empty = spur(["sbatch", "--wrap=true"], { SLURM_HOSTFILE: c.write("empty", "\n") });
    expect([empty.code, empty.stderr]).toEqual([1, "sbatch: error: Hostlist is empty!\nsbatch: error: Failure getting NodeNames from hostfile\n"]);
  });
});

describe("salloc with SLURM_HOSTFILE", () => {
  const show = "echo $SLURM_JOB_NODELIST ${SLURM_NTASKS-unset} $SLURM_TASKS_PER_NODE $SLURM_ARBITRARY_NODELIST";
  it("-n4: the shell's tasks are laid over the file's entries", () => {
    const r = spur(["salloc", "-n4", "bash", "-c", show], { SLURM_HOSTFILE: hosts });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("n[1-3] 4 1,2,1 n[2,2,1,3]");
  });

  it("without -n, a file with one entry per node gives a task per node", () => {
    const r = spur(["salloc", "bash", "-c", show], { SLURM_HOSTFILE: c.write("hosts3", "n3\nn1\nn2\n") });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("n[1-3] unset 1(x3) n[3,1-2]");
  });

  it("a task count other than the entries is refused after the grant (3 CPUs, 4 entries)", () => {
    const r = spur(["salloc", "-m", "arbitrary", "true"], { SLURM_HOSTFILE: hosts });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/salloc: error: Asked for 3 tasks have 4 in the nodelist\.  Check your nodelist, or set the -n option to be 4\nsalloc: Relinquishing job allocation \d+\n$/);
  });

  it("too few entries are refused before asking", () => {
    const r = spur(["salloc", "-n5", "true"], { SLURM_HOSTFILE: hosts });
    expect([r.code, r.stderr]).toEqual([1, "salloc: error: Too few NodeNames in Slurm Hostfile\nsalloc: error: Failure getting NodeNames from hostfile\n"]);
  });
});

describe("srun with SLURM_HOSTFILE", () => {
  it("reads it whatever -m says (oracle: -m block shows distribution arbitrary): task i on host i", () => {
    const r = spur(["srun", "-m", "block", "bash", "-c", "echo $SLURM_PROCID $SLURMD_NODENAME"], { SLURM_HOSTFILE: hosts });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n").filter(Boolean).sort()).toEqual(["0 n2", "1 n2", "2 n1", "3 n3"]);
  });

  it("refuses too few entries and a missing file with sbatch's lines", () => {
    const few = spur(["srun", "-n6", "true"], { SLURM_HOSTFILE: hosts });
    expect([few.code, few.stderr]).toEqual([1, "srun: error: Too few NodeNames in Slurm Hostfile\nsrun: error: Failure getting NodeNames from hostfile\n"]);
    const missing = spur(["srun", "true"], { SLURM_HOSTFILE: "/nonexistent/hosts" });
    expect([missing.code, missing.stderr]).toEqual([1, "srun: error: slurm_allocate_resources error opening file /nonexistent/hosts, No such file or directory\nsrun: error: Failure getting NodeNames from hostfile\n"]);
  });
});
