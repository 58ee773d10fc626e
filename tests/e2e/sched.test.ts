/**
 * End-to-end: the scheduler's user surface on a real local cluster configured
 * for multifactor priority and backfill: squeue --start shows the reserved
 * start and nodes of the job that waits for Resources, sprio's PRIORITY equals
 * squeue %Q and scontrol's Priority=, sdiag counts submissions and cycles,
 * scontrol show config reports the priority settings.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "2", "--mem-per-node", "2000"]);
  // Restart on the same state with the priority settings of the oracle's slurm.conf.
  c.reconfigure("PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightFairshare=10000\nPriorityWeightJobSize=1000\nPriorityWeightPartition=1000\n");
});
afterAll(() => c?.down());

const submit = (args: string[]): string => {
  const r = c.run(["sbatch", "--parsable", ...args]);
  expect(r.stderr).toBe("");
  return r.stdout.trim();
};

describe("scheduler surface", () => {
  it("plans, explains and counts", async () => {
    const big = submit(["-N2", "--exclusive", "-t", "10", "--wrap", "sleep 120"]);
    await eventually("first job running", () => (c.run(["squeue", "-h", "-j", big, "-o", "%T"]).stdout.trim() === "RUNNING" ? true : undefined), 60_000);
    const next = submit(["-N2", "--exclusive", "-t", "5", "--wrap", "true"]);
    const small = submit(["-n1", "-t", "20", "--wrap", "true"]);
    const start = await eventually("a planned start", () => {
      const lines = c.run(["squeue", "--start", "-h", "-j", next, "-o", "%i %S %Y %r"]).stdout.trim();
      return / \d{4}-\d\d-\d\dT/.test(lines) ? lines : undefined;
    }, 30_000);
    expect(start).toMatch(new RegExp(`^${next} \\S+ n\\[1-2\\] Resources$`));
    expect(c.run(["squeue", "-h", "-j", small, "-o", "%r"]).stdout.trim()).toBe("Priority");

    const sprio = c.run(["sprio"]);
    expect(sprio.code).toBe(0);
    const lines = sprio.stdout.split("\n");
    expect(lines[0]).toBe("          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  PARTITION");
    const prioOf = (id: string) => lines.find((l) => l.trim().startsWith(`${id} `))?.trim().split(/\s+/)[2];
    for (const id of [next, small]) {
      const q = c.run(["squeue", "-h", "-j", id, "-o", "%Q"]).stdout.trim();
      expect(prioOf(id)).toBe(q);
      expect(c.run(["scontrol", "show", "job", id]).stdout).toContain(` Priority=${q} `);
    }
    const long = c.run(["sprio", "-l", `-j${small}`]).stdout.split("\n")[0];
    expect(long).toContain("USER");
    expect(long).toContain("NICE");

    // An administrator's value is kept as set and shown everywhere.
    expect(c.run(["scontrol", "update", `JobId=${small}`, "Priority=5"]).code).toBe(0);
    await eventually("the fixed priority", () => (c.run(["squeue", "-h", "-j", small, "-o", "%Q"]).stdout.trim() === "5" ? true : undefined), 20_000);
    expect(c.run(["sprio", "-h", `-j${small}`, "-o", "%i %Y %S"]).stdout.trim()).toBe(`${small} 5 5`);

    const diag = c.run(["sdiag"]);
    expect(diag.code).toBe(0);
    expect(diag.stdout).toMatch(/Jobs submitted: [3-9]/);
    expect(diag.stdout).toMatch(/Main schedule statistics \(microseconds\):\n\tLast cycle: +\d+\n\tMax cycle: +\d+\n\tTotal cycles: [1-9]/);
    expect(diag.stdout).toContain("Backfilling stats");

    const config = c.run(["scontrol", "show", "config"]).stdout;
    expect(config).toMatch(/PriorityType\s+= priority\/multifactor/);
    expect(config).toMatch(/PriorityWeightFairShare\s+= 10000/);
    expect(config).toMatch(/SchedulerType\s+= sched\/backfill/);
    c.run(["scancel", big, next, small]);
  });

  it("a held job: PD with priority 0 and its hold as reason; sprio finds no job, as on the oracle; released it is ranked", async () => {
    const held = submit(["--hold", "-n1", "-t", "5", "--wrap", "true"]);
    await eventually("the hold shown", () => (c.run(["squeue", "-h", "-j", held, "-o", "%t %Q %r"]).stdout.trim() === "PD 0 JobHeldUser" ? true : undefined), 20_000);
    expect(c.run(["scontrol", "show", "job", held]).stdout).toMatch(/ Priority=0 [\s\S]* Reason=JobHeldUser /);
    // oracle (Slurm 22.05): `sbatch --hold; sprio -j <id>` lists no job, exit 0 (and prints
    // "Unable to find jobs matching user/id(s) specified" on stdout, no header)
    const sprio = c.run(["sprio", "-j", held]);
    expect(sprio.code).toBe(0);
    expect(sprio.stdout).toBe("Unable to find jobs matching user/id(s) specified\n");
    expect(sprio.stdout.split("\n").filter((l) => l.trim().startsWith(`${held} `))).toEqual([]);
    expect(c.run(["scontrol", "release", held]).code).toBe(0);
    await eventually("a priority once released", () => (Number(c.run(["squeue", "-h", "-j", held, "-o", "%Q"]).stdout.trim()) > 0 ? true : undefined), 20_000);
    c.run(["scancel", held]);
  });
});
