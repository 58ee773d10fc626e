/**
 * End-to-end: submission limits as a user meets them through sbatch, with the words
 * real Slurm 22.05 prints (checked against the shared oracle: a 5 MB script, a 1025-
 * character job name or comment, a 4100-character -o path, --array past MaxArraySize), a
 * path that is not UTF-8 refused rather than changed, and an oversized RPC body answered
 * 413. Each refused submission leaves no job behind.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { BIN, ensureUser, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;
beforeAll(() => {
  c = startCluster(["--nodes", "1", "--cpus-per-node", "2"]);
});
afterAll(() => c?.down());

const TOO_LONG = "sbatch: error: Batch job submission failed: Pathname of a file, directory or other parameter too long";
const jobCount = () => c.run(["squeue", "-h", "-o", "%i"]).stdout.split("\n").filter(Boolean).length;

describe("submission limits", () => {
  it("refuses what Slurm refuses, with Slurm's words, and accepts the edge", () => {
    const before = jobCount();
    const big = c.write("big.sh", `#!/bin/sh\n${"# padding line\n".repeat(300_000)}true\n`); // 4.2 MB > max_script_size
    expect(c.run(["sbatch", "--hold", big])).toMatchObject({ code: 1, stderr: expect.stringContaining(TOO_LONG) });
    const mid = c.write("mid.sh", `#!/bin/sh\n${"# padding line\n".repeat(200_000)}true\n`); // 3 MB passes
    expect(c.run(["sbatch", "--hold", mid]).code).toBe(0);
    expect(c.run(["sbatch", "--hold", "-J", "n".repeat(1025), "--wrap", "true"]).stderr).toContain(TOO_LONG);
    expect(c.run(["sbatch", "--hold", "-J", "n".repeat(1024), "--wrap", "true"]).code).toBe(0);
    expect(c.run(["sbatch", "--hold", `--comment=${"c".repeat(1025)}`, "--wrap", "true"]).stderr).toContain(TOO_LONG);
    expect(c.run(["sbatch", "--hold", "-o", `/tmp/${"o".repeat(4100)}`, "--wrap", "true"]).stderr).toContain(TOO_LONG);
    const array = c.run(["sbatch", "--hold", "--array=0-1001", "--wrap", "true"]);
    expect(array.stderr).toContain("sbatch: error: Batch job submission failed: Invalid job array specification");
    expect(c.run(["sbatch", "--hold", "--array=1000", "--wrap", "true"]).code).toBe(0);
    expect(jobCount()).toBe(before + 3);
  });

  it("refuses an -o path that is not UTF-8 instead of writing elsewhere", () => {
    const before = jobCount();
    // The byte 0xff is never UTF-8; printf puts it into argv as it is.
    const r = spawnSync("sh", ["-c", `exec "${BIN}" sbatch --hold -o "$(printf '${c.work}/out-\\377.txt')" --wrap true`], { env: c.env, cwd: c.work, encoding: "utf8" });
    expect(r.status, r.stdout).toBe(1);
    expect(r.stderr).toContain("sbatch: error: Batch job submission failed: Invalid character in a name or path: it is not valid UTF-8");
    expect(jobCount()).toBe(before);
  });

  it("answers 413 to an RPC body over the cap", async () => {
    const text = readFileSync(c.conf, "utf8");
    const host = /^ControlAddr=(\S+)/m.exec(text)?.[1] ?? /^SlurmctldHost=[^(\s]*\(([^)]+)\)/m.exec(text)?.[1] ?? "127.0.0.1";
    const port = /^(?:ControlPort|SlurmctldPort)=(\d+)/m.exec(text)?.[1] ?? "6817";
    const res = await fetch(`http://${host}:${port}/spur.v1.Controller/Submit`, {
      method: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(65 * 1024 * 1024),
    }).catch((e: unknown) => ({ status: `failed: ${String(e)}` }));
    expect(res.status).toBe(413);
  });

  // Last: it reconfigures the cluster.
  it.runIf(ensureUser("spurlimit"))("rate-limits a chatty user (rl_enable), never root, and the client backs off and succeeds", () => {
    c.reconfigure("SlurmctldParameters=rl_enable,rl_bucket_size=3,rl_refill_rate=1,rl_refill_period=2");
    c.env.SPUR_RATE_LIMIT_RETRIES = "0";
    const asUser = () => c.run(["squeue", "-h"], { user: "spurlimit" });
    let refused: ReturnType<typeof asUser> | undefined;
    for (let i = 0; i < 10 && refused === undefined; i++) {
      const r = asUser();
      if (r.code !== 0) refused = r;
    }
    expect(refused?.stderr).toContain("slurm_load_jobs error: Rate limit exceeded, please retry momentarily");
    for (let i = 0; i < 10; i++) expect(c.run(["squeue", "-h"]).code).toBe(0); // root is never limited
    c.env.SPUR_RATE_LIMIT_RETRIES = "30";
    for (let i = 0; i < 5; i++) expect(asUser().code).toBe(0); // waits for a token instead of failing
  }, 120_000);
});
