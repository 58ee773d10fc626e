/**
 * End-to-end: a heterogeneous job on a real local cluster. Two components from
 * "#SBATCH hetjob" blocks start together, show as N+0 / N+1 in squeue, scontrol and
 * sacct; the script runs once on the first component's node and sees every component
 * (SLURM_HET_SIZE, SLURM_*_HET_GROUP_n); `srun --het-group=1` runs on the second
 * component's nodes. All or nothing: while one component cannot start, neither does.
 * salloc takes ":" components as well, and srun A : B runs a heterogeneous step.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startCluster, eventually, jobEnded, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "4", "--cpus-per-node", "4", "--mem-per-node", "4000"]);
});
afterAll(() => c?.down());

const submit = (args: string[]): number => {
  const r = c.run(["sbatch", "--parsable", ...args]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return Number(r.stdout.trim());
};

/** squeue rows of the job (all its components): "%i %t %D %P". */
const rows = (id: number): string[] => c.run(["squeue", "-h", "-j", String(id), "-o", "%i %t %D %P"]).stdout.trim().split("\n").filter(Boolean);

describe("heterogeneous jobs", () => {
  it("runs two components together and shows them as N+0 and N+1", async () => {
    c.write("het.sh", [
      "#!/bin/bash",
      "#SBATCH -J hetx -n1",
      "#SBATCH hetjob",
      "#SBATCH -N2 -n2",
      'echo "size=$SLURM_HET_SIZE id=$SLURM_JOB_ID g0=$SLURM_JOB_ID_HET_GROUP_0 g1=$SLURM_JOB_ID_HET_GROUP_1 nodes1=$SLURM_JOB_NUM_NODES_HET_GROUP_1 on=$SLURMD_NODENAME list0=$SLURM_JOB_NODELIST_HET_GROUP_0 list1=$SLURM_JOB_NODELIST_HET_GROUP_1"',
      "srun --het-group=1 bash -c 'echo step $SLURMD_NODENAME $SLURM_JOB_ID' | sort",
      "touch started; while [ ! -e go ]; do sleep 0.2; done",
      "",
    ].join("\n"));
    const id = submit(["het.sh"]);
    await eventually("both components running", () => (rows(id).join(",") === `${id}+0 R 1 debug,${id}+1 R 2 debug` ? true : undefined), 30_000);
    const show = c.run(["scontrol", "show", "job", String(id)]).stdout;
    expect(show).toContain(`JobId=${id} HetJobId=${id} HetJobOffset=0 JobName=hetx\n   HetJobIdSet=${id}-${id + 1}\n`);
    expect(show).toContain(`JobId=${id + 1} HetJobId=${id} HetJobOffset=1 JobName=hetx\n   HetJobIdSet=${id}-${id + 1}\n`);
    // every component is a batch job to Slurm (oracle: BatchFlag=1 on the second component too)
    expect(show.match(/BatchFlag=1/g)?.length).toBe(2);
    // scontrol: N+K names one component; squeue -j N+K lists the whole job, as 22.05's does
    expect(c.run(["squeue", "-h", "-j", `${id}+1`, "-o", "%i %D"]).stdout).toBe(`${id}+0 1\n${id}+1 2\n`);
    expect(c.run(["scontrol", "show", "job", `${id}+1`]).stdout).toMatch(new RegExp(`^JobId=${id + 1} HetJobId=${id} HetJobOffset=1 JobName=hetx\n`));
    const cols = c.run(["squeue", "-h", "-j", String(id), "-O", "HetJobId:8,HetJobOffset:4,HetJobIdSet:10"]).stdout;
    expect(cols.trim().split("\n").map((l) => l.trim().split(/\s+/))).toEqual([[String(id), "0", `${id}-${id + 1}`], [String(id), "1", `${id}-${id + 1}`]]);
    await eventually("script at its wait", () => (readFileSync(join(c.work, "started"), "utf8") === "" ? true : undefined), 30_000);
    c.write("go", "");
    expect(await jobEnded(c, `${id}+0`)).toBe("COMPLETED");
    const out = readFileSync(join(c.work, `slurm-${id}.out`), "utf8").split("\n");
    const m = /^size=2 id=(\d+) g0=(\d+) g1=(\d+) nodes1=2 on=(n\d) list0=(n\d) list1=(\S+)$/.exec(out[0] ?? "");
    expect(m?.slice(1, 4)).toEqual([String(id), String(id), String(id + 1)]);
    // the script runs on the first component's (first) node
    expect(m?.[4]).toBe(m?.[5]);
    // the step of component 1 runs on component 1's two nodes; its tasks see the whole job's id (the leader's)
    const list1 = c.run(["scontrol", "show", "hostnames", m?.[6] ?? ""]).stdout.trim().split("\n");
    expect(out.slice(1, 3)).toEqual(list1.map((n) => `step ${n} ${id}`));
    const acct = c.run(["sacct", "-j", String(id), "-P", "-n", "-o", "JobID,JobName,State,ExitCode"]).stdout;
    expect(acct).toContain(`${id}+0|hetx|COMPLETED|0:0\n`);
    expect(acct).toContain(`${id}+0.batch|batch|COMPLETED|0:0\n`);
    expect(acct).toContain(`${id}+1|hetx|COMPLETED|0:0\n`);
    expect(acct).toContain(`${id}+1.0|bash|COMPLETED|0:0\n`);
    // only the leader ran a batch script
    expect(acct).not.toContain(`${id}+1.batch`);
    // N+K names that component alone
    expect(c.run(["sacct", "-j", `${id}+1`, "-P", "-n", "-o", "JobID"]).stdout).toBe(`${id}+1\n${id}+1.0\n`);
  });

  it("starts no component while one cannot, then both at once", async () => {
    // three nodes busy: component 1 (two whole nodes) cannot start, so component 0 (one CPU) waits too
    c.write("hold.sh", "#!/bin/bash\nwhile [ ! -e release ]; do sleep 0.2; done\n");
    const blocker = submit(["-N3", "--exclusive", "hold.sh"]);
    await eventually("blocker running", () => (c.run(["squeue", "-h", "-j", String(blocker), "-o", "%t"]).stdout.trim() === "R" ? true : undefined), 30_000);
    const id = submit(["-J", "aon", "-n1", ":", "-N2", "--exclusive", "--wrap", "sleep 1"]);
    await eventually("both pending on Resources", () => {
      const r = c.run(["squeue", "-h", "-j", String(id), "-o", "%i %t %r"]).stdout;
      return r === `${id}+0 PD Resources\n${id}+1 PD Resources\n` ? true : undefined;
    }, 30_000);
    c.write("release", "");
    expect(await jobEnded(c, `${id}+0`)).toBe("COMPLETED");
    const acct = c.run(["sacct", "-j", String(id), "-X", "-P", "-n", "-o", "JobID,Start"]).stdout.trim().split("\n");
    expect(acct.map((l) => l.split("|")[0])).toEqual([`${id}+0`, `${id}+1`]);
    // started together
    expect(new Set(acct.map((l) => l.split("|")[1])).size).toBe(1);
  });

  it("salloc A : B: one allocation of two components; the shell sees both, srun --het-group=1 runs on the second", () => {
    const r = c.run(["salloc", "-J", "hs", "-n1", ":", "-N2", "bash", "-c",
      'echo "$SLURM_HET_SIZE $SLURM_JOB_ID $SLURM_JOB_ID_HET_GROUP_1 $SLURM_NNODES_HET_GROUP_1"; srun --het-group=1 bash -c \'echo $SLURMD_NODENAME\' | wc -l']);
    expect(r.code).toBe(0);
    const id = Number(/Granted job allocation (\d+)/.exec(r.stderr)?.[1]);
    expect(r.stdout).toBe(`2 ${id} ${id + 1} 2\n2\n`);
    const acct = c.run(["sacct", "-j", String(id), "-P", "-n", "-o", "JobID,JobName,State"]).stdout;
    expect(acct).toBe(`${id}+0|hs|COMPLETED\n${id}+1|hs|COMPLETED\n${id}+1.0|bash|COMPLETED\n`);
  });

  it("srun A : B: a het job whose step numbers its tasks over the components; each component's step in sacct", () => {
    const show = "echo $SLURM_PROCID/$SLURM_NTASKS node=$SLURM_NODEID/$SLURM_NNODES list=$SLURM_STEP_NODELIST job=$SLURM_JOB_ID het=$SLURM_HET_SIZE g1=$SLURM_JOB_ID_HET_GROUP_1";
    const r = c.run(["srun", "-J", "hstep", "-N2", "-n2", "-l", "bash", "-c", show, ":", "-n1", "bash", "-c", `${show}; exit 3`]);
    expect(r.code).toBe(3);
    const lines = r.stdout.trim().split("\n").sort();
    const id = Number(/job=(\d+)/.exec(lines[0] ?? "")?.[1]);
    expect(lines).toEqual([0, 1, 2].map((t) => `${t}: ${t}/3 node=${t}/3 list=n[1-3] job=${id} het=2 g1=${id + 1}`));
    // the exit line names the component's own task id, the label the step's rank (oracle)
    expect(r.stderr).toContain("srun: error: n3: task 0: Exited with exit code 3\n");
    const acct = c.run(["sacct", "-j", String(id), "-P", "-n", "-o", "JobID,JobName,NTasks,NodeList,ExitCode"]).stdout;
    expect(acct).toBe(`${id}+0|hstep||n[1-2]|3:0\n${id}+0.0|hstep|2|n[1-2]|0:0\n${id}+1|hstep||n3|3:0\n${id}+1.0|hstep|1|n3|3:0\n`);
  });

  it("srun A : B in an ordinary allocation: the components take the job's nodes in turn (Slurm's error when they run out)", () => {
    const r = c.run(["salloc", "-N3", "bash", "-c",
      "srun -l -n2 bash -c 'echo $SLURMD_NODENAME $SLURM_PROCID/$SLURM_NTASKS' : -n1 bash -c 'echo $SLURMD_NODENAME $SLURM_PROCID/$SLURM_NTASKS'; srun -N2 true : -N2 true; echo rc=$?"]);
    expect(r.stdout.trim().split("\n").sort()).toEqual(["0: n1 0/3", "1: n2 1/3", "2: n3 2/3", "rc=1"]);
    expect(r.stderr).toContain("srun: error: Allocation failure of 2 nodes: job size of 3, already allocated 2 nodes to previous components.\n");
    expect(r.stderr).not.toContain("Warning");
  });

  it("sbatch --test-only: every component is tested, one line for the whole job", () => {
    const r = c.run(["sbatch", "--test-only", "-n1", ":", "-N2", "--wrap", "true"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^sbatch: Job \d+ to start at \S+ using 3 processors on n\[1-2\]\n$/);
    const bad = c.run(["sbatch", "--test-only", "-n1", ":", "-N9", "--wrap", "true"]);
    expect([bad.code, bad.stderr]).toEqual([1, "allocation failure: Requested node configuration is not available\n"]);
  });

  it("scancel: a pending component alone is refused, the leader's id cancels every component", () => {
    const id = submit(["--hold", "-J", "held", "-n1", ":", "-n1", "--wrap", "true"]);
    const one = c.run(["scancel", `${id}+1`]);
    expect(one.stderr).toBe(`scancel: error: Kill job error on job id ${id}+1: Operation not permitted on individual component of heterogeneous job\n`);
    // the largest errno seen, mod 256: ESLURM_NOT_WHOLE_HET_JOB = 2108
    expect(one.code).toBe(60);
    expect(c.run(["scancel", String(id)]).code).toBe(0);
    const states = c.run(["sacct", "-j", String(id), "-X", "-P", "-n", "-o", "JobID,State"]).stdout;
    expect(states).toBe(`${id}+0|CANCELLED by 0\n${id}+1|CANCELLED by 0\n`);
  });
});
