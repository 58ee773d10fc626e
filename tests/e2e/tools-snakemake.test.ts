/**
 * Real client tool: Snakemake 7 (Debian's `snakemake` package) with its built-in
 * `--slurm` executor, run unchanged against a Spur cluster through the
 * Slurm-named links. The workflow has three rules with resources (threads,
 * memory, runtime), one asking for a GPU through `slurm_extra`, and a rule that
 * gathers them; Snakemake submits each job with sbatch, watches it with sacct,
 * and runs the rule inside the job with srun. Skipped, saying so, where
 * snakemake is not installed (CI installs it: .ci/run).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { userInfo } from "node:os";
import { startCluster, type Cluster } from "./cluster.ts";
import { runTool, toolMissing } from "./tools.ts";

const missing = toolMissing("snakemake", "snakemake");
if (missing) console.warn(missing);

// Memory requests are hard cgroup limits on Spur (as on a Slurm site with ConstrainRAMSpace=yes),
// and each job runs Snakemake's own Python inside it: 100 MB ended a job OUT_OF_MEMORY.
const SNAKEFILE = `SAMPLES = ["a", "b"]

rule all:
    input: "total.txt"

rule square:
    output: "sq_{s}.txt"
    threads: 2
    resources: mem_mb=200, runtime=5
    shell: "echo {wildcards.s} job=$SLURM_JOB_ID cpus=$SLURM_CPUS_PER_TASK > {output}"

rule gpu:
    output: "gpu.txt"
    resources: mem_mb=400, runtime=5, slurm_partition="debug", slurm_extra="--gres=gpu:1"
    shell: "echo gpus=$CUDA_VISIBLE_DEVICES job=$SLURM_JOB_ID > {output}"

rule total:
    input: expand("sq_{s}.txt", s=SAMPLES), "gpu.txt"
    output: "total.txt"
    resources: mem_mb=400, runtime=5
    shell: "cat {input} > {output}"
`;

describe.skipIf(missing !== undefined)("Snakemake 7 --slurm on Spur", () => {
  let c: Cluster;
  beforeAll(() => {
    c = startCluster(["--nodes", "2", "--cpus-per-node", "4", "--mem-per-node", "4000", "--gpus-per-node", "2", "--gpu-model", "mi300x"]);
  });
  afterAll(() => c?.down());

  it("runs a multi-rule workflow with resources and a GPU request to the end", async () => {
    c.write("Snakefile", SNAKEFILE);
    // --max-status-checks-per-second 1: the --slurm executor checks every 33 s by default and for any
    // value above 1; CI=true makes its submission loop sleep 1 s instead of 10 s between rounds
    const r = await runTool(
      ["snakemake", "--slurm", "--jobs", "4", "--max-status-checks-per-second", "1", "--latency-wait", "5", "--nocolor"],
      { cwd: c.work, env: { ...c.env, USER: userInfo().username, CI: "true" }, timeoutMs: 280_000 },
    );
    expect(r.code, r.output.slice(-3000)).toBe(0);
    const total = readFileSync(join(c.work, "total.txt"), "utf8").trim().split("\n");
    expect(total).toHaveLength(3);
    expect(total[0]).toMatch(/^a job=\d+ cpus=2$/);
    expect(total[1]).toMatch(/^b job=\d+ cpus=2$/);
    expect(total[2]).toMatch(/^gpus=[01] job=\d+$/);

    // accounting: one COMPLETED record per rule's job, with the resources Snakemake asked for
    const acct = spawnSync("sacct", ["-X", "-P", "-n", "-o", "JobID,JobName,State,ExitCode,AllocCPUS,ReqMem,AllocTRES"], {
      cwd: c.work, env: c.env, encoding: "utf8",
    });
    expect(acct.status).toBe(0);
    const rows = acct.stdout.trim().split("\n").map((l) => l.split("|"));
    const byName = (name: string) => rows.filter((row) => row[1]?.startsWith(`snakejob_${name}_`));
    expect(byName("square")).toHaveLength(2);
    for (const row of byName("square")) expect(row.slice(2, 6)).toEqual(["COMPLETED", "0:0", "2", "200M"]);
    const [gpu] = byName("gpu");
    expect(gpu?.slice(2, 4)).toEqual(["COMPLETED", "0:0"]);
    expect(gpu?.[6]).toContain("gres/gpu=1");
    expect(byName("total").map((row) => row[2])).toEqual(["COMPLETED"]);
    // the job ids the rules saw are the ones sacct lists
    const ids = total.map((l) => /job=(\d+)/.exec(l)?.[1]);
    for (const id of ids) expect(rows.map((row) => row[0])).toContain(id);
  }, 300_000);
});
