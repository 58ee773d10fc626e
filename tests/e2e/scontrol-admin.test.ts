/**
 * End-to-end (issue 21): scontrol's administration commands on the compiled binary.
 * - `scontrol listpids` on the node: the batch script as task 0 of the batch step, what it
 *   started as "-", an srun step's tasks with their ids; an ordinary user sees none of root's.
 * - `scontrol create/update/delete partition`: the partition is scheduled into, shows in
 *   scontrol and sinfo, survives a controller restart (replayed from the log), and is for
 *   operators only ("Invalid user id").
 * - `scontrol reconfigure`: spur.conf edited, then re-read: a new partition and a new
 *   setting take effect without a restart; an added node is refused with Slurm's text.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { startCluster, eventually, ensureUser, isRoot, type Cluster } from "./cluster.ts";

const USER = "spuradmin";
const userReady = isRoot() && ensureUser(USER);
let c: Cluster;

beforeAll(async () => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "4", "--mem-per-node", "2000"]);
  await eventually("controller answering", () => (c.run(["sinfo"]).code === 0 ? true : undefined), 60_000);
});
afterAll(() => c?.down());

const cmdline = (pid: string): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "";
  }
};

describe("scontrol listpids", () => {
  it("lists the batch script, what it started, and an srun step's tasks", async () => {
    const script = c.write("pids.sh", "#!/bin/sh\nsrun -n2 sleep 300 &\nsleep 300 &\nwait\n");
    const sub = c.run(["sbatch", "--parsable", "-J", "trig-pids", "-N1", "-n2", "-w", "n2", script]);
    expect(sub.code, sub.stderr).toBe(0);
    const id = sub.stdout.trim();
    const rows = await eventually("the step's tasks run", () => {
      const r = c.run(["scontrol", "listpids", id]);
      const lines = r.stdout.split("\n").slice(1).filter(Boolean);
      // both tasks past their start-up shell (which forks `cat` and prlimit, listed as "-" while they run)
      const tasks = lines.filter((l) => / 0 +[01] +[01] +$/.test(l));
      const started = tasks.length === 2 && tasks.every((l) => cmdline(l.trim().split(/\s+/)[0] ?? "").startsWith("sleep 300"));
      const forked = lines.some((l) => / batch +- +- *$/.test(l) && cmdline(l.trim().split(/\s+/)[0] ?? "").startsWith("sleep 300"));
      return started && forked ? lines : undefined;
    }, 60_000);
    expect(c.run(["scontrol", "listpids", id]).stdout.split("\n")[0]).toBe("PID      JOBID    STEPID   LOCALID GLOBALID");
    const cols = rows.map((l) => l.trim().split(/\s+/));
    const batchTask = cols.find((r) => r[2] === "batch" && r[3] === "0");
    expect(batchTask?.slice(1)).toEqual([id, "batch", "0", "0"]);
    expect(cmdline(batchTask?.[0] ?? "")).toContain(`/jobs/${id}/script`);
    expect(cols.some((r) => r[2] === "batch" && r[3] === "-" && cmdline(r[0] ?? "").startsWith("sleep 300"))).toBe(true);
    const step = cols.filter((r) => r[2] === "0" && r[3] !== "-");
    expect(step.map((r) => r.slice(1)).sort()).toEqual([[id, "0", "0", "0"], [id, "0", "1", "1"]]);
    for (const r of step) expect(cmdline(r[0] ?? "")).toContain("sleep 300");
    // one step only, a node by name, another node has none of it
    expect(c.run(["scontrol", "listpids", `${id}.0`, "n2"]).stdout.split("\n").filter(Boolean)).toHaveLength(3);
    expect(c.run(["scontrol", "listpids", id, "n1"])).toMatchObject({ stderr: `JobId=${id} does not exist on node n1.\n`, code: 1 });
    expect(c.run(["scontrol", "listpids", `${id}.7`, "n2"])).toMatchObject({ stderr: `StepId=${id}.7 does not exist on node n2.\n`, code: 1 });
    expect(c.run(["scontrol", "listpids", "99999", "n2"])).toMatchObject({ stderr: "There are no steps for job 99999 on node n2.\n", code: 1 });
    // numbered steps first, then the batch step (as 22.05 printed them)
    expect(cols.findIndex((r) => r[2] === "0")).toBeLessThan(cols.findIndex((r) => r[2] === "batch"));
    if (userReady) expect(c.run(["scontrol", "listpids"], { user: USER })).toMatchObject({ stderr: "No job steps exist on this node.\n", code: 1 });
    expect(c.run(["scancel", id]).code).toBe(0);
  });
});

describe("scontrol create/update/delete partition", () => {
  it("creates a partition jobs run in, updates and deletes it, and it survives a restart", async () => {
    const made = c.run(["scontrol", "create", "partition", "PartitionName=short", "Nodes=n1", "MaxTime=10", "PriorityTier=3"]);
    expect(made, made.stderr).toEqual({ stdout: "", stderr: "", code: 0 });
    expect(c.run(["sinfo", "-h", "-p", "short", "-o", "%P %N %l"]).stdout).toBe("short n1 10:00\n");
    const job = c.run(["sbatch", "--parsable", "-p", "short", "-J", "trig-short", "--wrap", "true"]);
    expect(job.code, job.stderr).toBe(0);
    await eventually("the job ran in the new partition", () => (/COMPLETED/.test(c.run(["sacct", "-n", "-X", "-j", job.stdout.trim(), "-o", "State"]).stdout) ? true : undefined), 60_000);
    expect(c.run(["scontrol", "update", "PartitionName=short", "State=DOWN", "MaxTime=20"]).code).toBe(0);
    c.reconfigure(""); // restart the daemons on the same state: the partition comes back from the log
    await eventually("controller answering", () => (c.run(["sinfo"]).code === 0 ? true : undefined), 60_000);
    const shown = c.run(["scontrol", "show", "partition", "short"]).stdout;
    expect(shown).toContain("MaxTime=00:20:00");
    expect(shown).toContain("State=DOWN");
    if (userReady) {
      expect(c.run(["scontrol", "delete", "PartitionName=short"], { user: USER })).toMatchObject({ stderr: "delete_partition PartitionName=short: Invalid user id\n", code: 1 });
      expect(c.run(["scontrol", "create", "PartitionName=mine", "Nodes=n1"], { user: USER })).toMatchObject({ stderr: "Error creating the partition: Invalid user id\n", code: 1 });
    }
    expect(c.run(["scontrol", "delete", "PartitionName=short"]).code).toBe(0);
    expect(c.run(["scontrol", "show", "partition", "short"])).toMatchObject({ stdout: "Partition short not found\n", code: 1 });
  });
});

describe("scontrol reconfigure", () => {
  it("re-reads spur.conf: a new partition and setting apply at once; an added node needs a restart", async () => {
    const before = readFileSync(c.conf, "utf8");
    appendFileSync(c.conf, "PartitionName=extra Nodes=n2 MaxTime=7\nMinJobAge=42\n");
    const r = c.run(["scontrol", "reconfigure"]);
    expect(r, r.stderr).toEqual({ stdout: "", stderr: "", code: 0 });
    expect(c.run(["sinfo", "-h", "-p", "extra", "-o", "%P %N %l"]).stdout).toBe("extra n2 7:00\n");
    expect(c.run(["scontrol", "show", "config"]).stdout).toMatch(/^MinJobAge\s+= 42 sec$/m);
    if (userReady) expect(c.run(["scontrol", "reconfigure"], { user: USER })).toMatchObject({ stderr: "slurm_reconfigure error: Invalid user id\n", code: 1 });
    appendFileSync(c.conf, "NodeName=n9 CPUs=1 RealMemory=100 Port=1\n");
    const more = c.run(["scontrol", "reconfigure"]);
    expect(more).toMatchObject({ stderr: "slurm_reconfigure error: node count has changed before reconfiguration from 2 to 3. You have to restart slurmctld.\n", code: 1 });
    expect(c.run(["scontrol", "show", "node", "n9"])).toMatchObject({ stdout: "Node n9 not found\n", code: 1 });
    writeFileSync(c.conf, before);
    expect(c.run(["scontrol", "reconfigure"]).code).toBe(0);
    expect(c.run(["sinfo", "-h", "-p", "extra"]).stdout).toBe("");
  });
});
