/**
 * End-to-end: a GPU-minute limit on a real local cluster (issue 20). With
 * AccountingStorageEnforce=limits, `sacctmgr modify account ... set GrpTRESMins=gres/gpu=1`
 * is accepted and shown; sshare -l shows the limit and, while a GPU job runs, its TRESRunMins;
 * once the account has used a GPU-minute its next GPU job pends with AssocGrpGRESMinutes
 * while a CPU-only job of the same account still runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN, eventually, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "1", "--cpus-per-node", "4", "--mem-per-node", "4000", "--gpus-per-node", "4", "--gpu-model", "mi300x"]);
  // no decay: the GPU-seconds used stay counted whole for the check below
  appendFileSync(c.conf, "AccountingStorageEnforce=associations,limits,qos\nAccountingStorageTRES=gres/gpu\nPriorityDecayHalfLife=0\n");
  spawnSync(BIN, ["down", "--state-dir", join(c.dir, "cluster")]);
  const up = spawnSync(BIN, ["up", "--detach", "--state-dir", join(c.dir, "cluster")], { encoding: "utf8" });
  if (up.status !== 0) throw new Error(`spur up failed: ${up.stdout}${up.stderr}`);
});
afterAll(() => c?.down());

const squeueLine = (id: string): string => c.run(["squeue", "-h", "-o", "%T %r", "-j", id]).stdout.trim();

describe("limits over time", () => {
  it("GrpTRESMins=gres/gpu holds the account's next GPU job with AssocGrpGRESMinutes", async () => {
    expect(c.run(["sacctmgr", "-i", "add", "account", "gpuacct"]).code).toBe(0);
    expect(c.run(["sacctmgr", "-i", "add", "user", "root", "Account=gpuacct"]).code).toBe(0);
    expect(c.run(["sacctmgr", "-i", "modify", "account", "gpuacct", "set", "GrpTRESMins=gres/gpu=1"]).code).toBe(0);
    const shown = c.run(["sacctmgr", "-n", "-P", "show", "assoc", "where", "account=gpuacct", "format=account,user,grptresmins"]);
    expect(shown.stderr + shown.stdout).toBe("gpuacct||gres/gpu=1\ngpuacct|root|\n");

    // 2 GPUs for about 35 s: over one GPU-minute once it ends
    const first = c.run(["sbatch", "--parsable", "-A", "gpuacct", "--gpus=2", "-t", "5", "--wrap", "sleep 35"]).stdout.trim();
    await eventually("the first GPU job runs", () => (squeueLine(first).startsWith("RUNNING") ? true : undefined), 30_000);
    const share = c.run(["sshare", "-l", "-P", "-A", "gpuacct", "-o", "account,user,grptresmins,tresrunmins"]).stdout.split("\n");
    const accountRow = share.find((l) => l.trim().startsWith("gpuacct||")) ?? "";
    expect(accountRow).toContain("|gres/gpu=1|");
    // 2 GPUs x up to 5 minutes left of the time limit
    expect(accountRow).toMatch(/gres\/gpu=(9|10)$/);
    await eventually("the first GPU job ends", () => (squeueLine(first) === "" ? true : undefined), 90_000);

    const second = c.run(["sbatch", "--parsable", "-A", "gpuacct", "--gpus=1", "-t", "5", "--wrap", "sleep 1"]).stdout.trim();
    const cpuOnly = c.run(["sbatch", "--parsable", "-A", "gpuacct", "-t", "5", "--wrap", "sleep 1"]).stdout.trim();
    await eventually("the GPU job pends on the GPU-minute limit", () => (squeueLine(second) === "PENDING AssocGrpGRESMinutes" ? true : undefined), 30_000);
    await eventually("the CPU-only job is not held by it", () => {
      const line = squeueLine(cpuOnly);
      return line === "" || line.startsWith("RUNNING") ? true : undefined;
    }, 30_000);
    c.run(["scancel", second]);
  }, 240_000);
});
