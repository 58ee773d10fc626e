/**
 * Real client tool: Toil 5.9 (Debian's `toil` package) with its Slurm batch
 * system, run unchanged against a Spur cluster through the Slurm-named links.
 * The workflow: a root job spawns three children that square a number (one
 * asks for 2 cores), and a follow-on job writes their results and their sum.
 * Toil submits with sbatch, polls squeue, reads exit codes with sacct
 * (`-S 1970-01-01`) and scontrol. Skipped, saying so, where Toil is not
 * installed (CI installs it: .ci/run).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startCluster, type Cluster } from "./cluster.ts";
import { runTool, toolMissing } from "./tools.ts";

/** Debian's toil lives in the system Python; a python3 earlier on PATH (pyenv, venv) may lack it. */
const PYTHON = "/usr/bin/python3";
const missing = toolMissing(PYTHON, "toil", ["-c", "import toil.batchSystems.slurm"]);
if (missing) console.warn(missing);

const WORKFLOW = `"""Toil workflow run by tests/e2e/tools-toil.test.ts."""
import os
from toil.common import Toil
from toil.job import Job


def square(job, n):
    return {"n": n, "sq": n * n, "job": os.environ.get("SLURM_JOB_ID", ""), "cpus": os.environ.get("SLURM_CPUS_PER_TASK", "")}


def total(job, parts, out_path):
    with open(out_path, "w") as f:
        for p in parts:
            f.write(f"{p['n']} {p['sq']} job={p['job']} cpus={p['cpus']}\\n")
        f.write(f"sum {sum(p['sq'] for p in parts)}\\n")


def root(job, out_path):
    parts = [job.addChildJobFn(square, n, cores=2 if n == 3 else 1, memory="100M", disk="10M").rv() for n in (1, 2, 3)]
    job.addFollowOnJobFn(total, parts, out_path, cores=1, memory="100M", disk="10M")


if __name__ == "__main__":
    parser = Job.Runner.getDefaultArgumentParser()
    parser.add_argument("--out", required=True)
    options = parser.parse_args()
    with Toil(options) as toil:
        toil.start(Job.wrapJobFn(root, options.out, cores=1, memory="100M", disk="10M"))
`;

describe.skipIf(missing !== undefined)("Toil's Slurm batch system on Spur", () => {
  let c: Cluster;
  beforeAll(() => {
    c = startCluster(["--nodes", "2", "--cpus-per-node", "4", "--mem-per-node", "4000"]);
  });
  afterAll(() => c?.down());

  it("runs a small workflow to the end with correct results and accounting", async () => {
    c.write("wf.py", WORKFLOW);
    const out = join(c.work, "out.txt");
    // --statePollingWait: otherwise Toil derives its polling period from `scontrol show config`
    const r = await runTool(
      [PYTHON, "wf.py", `file:${join(c.work, "jobstore")}`, "--out", out, "--batchSystem", "slurm", "--statePollingWait", "1",
        "--workDir", c.work, "--disableCaching", "--logLevel", "INFO"],
      { cwd: c.work, env: c.env, timeoutMs: 200_000 },
    );
    expect(r.code, r.output.slice(-3000)).toBe(0);
    // Toil reads exit codes with `sacct -S 1970-01-01`: Spur must not reject that date
    expect(r.output).not.toContain("Invalid time specification");
    const lines = readFileSync(out, "utf8").trim().split("\n");
    expect(lines.map((l) => l.replace(/ job=\d+/, ""))).toEqual(["1 1 cpus=1", "2 4 cpus=1", "3 9 cpus=2", "sum 14"]);

    const acct = spawnSync("sacct", ["-X", "-P", "-n", "-o", "JobID,JobName,State,ExitCode,AllocCPUS"], { cwd: c.work, env: c.env, encoding: "utf8" });
    expect(acct.status).toBe(0);
    const rows = acct.stdout.trim().split("\n").map((l) => l.split("|"));
    const toil = rows.filter((row) => row[1]?.startsWith("toil_job_"));
    // root, three children, the follow-on: every one a COMPLETED Slurm job
    expect(toil.length).toBeGreaterThanOrEqual(5);
    for (const row of toil) expect(row.slice(2, 4)).toEqual(["COMPLETED", "0:0"]);
    const jobOf = (n: number) => /job=(\d+)/.exec(lines[n - 1] ?? "")?.[1];
    expect(toil.find((row) => row[0] === jobOf(3))?.[4]).toBe("2");
    expect(toil.find((row) => row[0] === jobOf(1))?.[4]).toBe("1");
  }, 240_000);
});
