/**
 * End-to-end: accounting on a real local cluster with
 * AccountingStorageEnforce=associations,limits,qos. sacctmgr adds an account,
 * a QOS and limits (the prompt without -i discards on "n"), sbatch is checked
 * against associations, QOS and MaxSubmitJobs with Slurm's error text, a job
 * over MaxJobs pends with AssocMaxJobsLimit, sprio shows the QOS factor, sshare
 * lists the tree, and the records survive a controller restart (log replay).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN, eventually, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

const restart = (): void => {
  spawnSync(BIN, ["down", "--state-dir", join(c.dir, "cluster")]); // not c.down(): that removes the state too
  const up = spawnSync(BIN, ["up", "--detach", "--state-dir", join(c.dir, "cluster")], { encoding: "utf8" });
  if (up.status !== 0) throw new Error(`spur up failed: ${up.stdout}${up.stderr}`);
};

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "2", "--mem-per-node", "2000"]);
  appendFileSync(c.conf, "AccountingStorageEnforce=associations,limits,qos\nPriorityType=priority/multifactor\nPriorityWeightQOS=1000\nPriorityWeightFairshare=100\n");
  restart();
});
afterAll(() => c?.down());

describe("accounting", () => {
  it("manages records with sacctmgr, enforces them at submit and in scheduling, and keeps them across a restart", async () => {
    const no = c.run(["sacctmgr", "add", "account", "phys"], { input: "n\n" });
    expect(no.stdout).toContain("Would you like to commit changes?");
    expect(no.stdout).toContain(" Changes Discarded");
    expect(c.run(["sacctmgr", "-n", "-P", "show", "account", "format=account"]).stdout).toBe("root\n");

    expect(c.run(["sacctmgr", "-i", "add", "account", "phys", "Description=physics"]).code).toBe(0);
    expect(c.run(["sacctmgr", "-i", "add", "qos", "high", "Priority=100"]).code).toBe(0);
    expect(c.run(["sacctmgr", "add", "user", "root", "Account=phys", "QOS=normal,high", "MaxJobs=1", "MaxSubmitJobs=3"], { input: "y\n" }).code).toBe(0);
    const assoc = c.run(["sacctmgr", "-n", "-P", "show", "assoc", "where", "account=phys", "format=account,user,maxjobs,maxsubmit,qos"]);
    expect(assoc.stdout).toBe("phys||||normal\nphys|root|1|3|high,normal\n");

    const bad = c.run(["sbatch", "-A", "nosuch", "--wrap", "true"]);
    expect(bad.stderr).toBe("sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified\n");
    expect(c.run(["sbatch", "-A", "phys", "-q", "nosuch", "--wrap", "true"]).stderr).toContain("Invalid qos specification");

    const ids = [1, 2, 3].map(() => c.run(["sbatch", "--parsable", "-A", "phys", "-q", "high", "-t", "5", "--wrap", "sleep 60"]).stdout.trim());
    const over = c.run(["sbatch", "-A", "phys", "--wrap", "true"]);
    expect(over.stderr).toBe("sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)\n");
    await eventually("one running, the others held by MaxJobs", () => {
      const out = c.run(["squeue", "-h", "-o", "%i %T %r", "-j", ids.join(",")]).stdout.trim().split("\n").sort();
      return out.length === 3 && out[0]?.endsWith("RUNNING None") && out.slice(1).every((l) => l.endsWith("PENDING AssocMaxJobsLimit")) ? out : undefined;
    }, 60_000);
    const sprio = c.run(["sprio", "-h", "-o", "%i %q", `-j${ids[1]}`]).stdout.trim();
    expect(sprio).toBe(`${ids[1]} 1.0000000`);
    const share = c.run(["sshare", "-a", "-P", "-o", "account,user,rawshares"]).stdout;
    expect(share).toContain(" phys||1\n");
    expect(share).toContain("  phys|root|1\n");

    restart();
    expect(c.run(["sacctmgr", "-n", "-P", "show", "qos", "format=name,priority"]).stdout).toBe("normal|0\nhigh|100\n");
    expect(c.run(["sacctmgr", "-n", "-P", "show", "user", "root", "format=user,defaultaccount"]).stdout).toBe("root|root\n");
    expect(c.run(["sacctmgr", "-i", "delete", "account", "phys"]).code).toBe(0);
    c.run(["scancel", ...ids]);
  });
});
