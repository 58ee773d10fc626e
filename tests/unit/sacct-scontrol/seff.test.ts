/**
 * seff (issue 20): the arithmetic (CPU efficiency of core-walltime, memory as the largest step
 * MaxRSS times its tasks against the allocated memory) and the layout of the contributed seff
 * script (22.05), from sacct-like records; the command's options and "Job not found.".
 */
import { describe, expect, it } from "vitest";
import { fixed2, kibText, seffFigures, seffText, tresMemKib } from "../../../src/compat/format/seff.ts";
import { seffMain } from "../../../src/cli/seff.ts";
import { at, fakePort, makeJob, makeStep, type Job } from "./helpers.ts";

const NOW = at("13:00:00");
const START = at("12:00:00");

const usage = (p: { maxRssKib?: number; userCpuSec?: number; systemCpuSec?: number; ntasks?: number }) => ({
  maxRssKib: 0, maxRssNode: "n1", aveRssKib: 0, maxVmsizeKib: 0, maxVmsizeNode: "n1", aveVmsizeKib: 0,
  userCpuSec: 0, systemCpuSec: 0, minCpuSec: 0, minCpuNode: "n1", ntasks: 1, maxPages: 0, ...p,
});

/** A finished 4-CPU job on one node: 100 s wall, 200.4 s of CPU in its batch step, 100 MiB peak. */
function fourCpuJob(p: Partial<Job> = {}): Job {
  return makeJob({
    jobId: 40, user: "alice", group: "users", numCpus: 4, numNodes: 1, nodelist: "n1",
    memPerCpuMib: 0, memPerNodeMib: 2000, tresReq: "cpu=4,mem=2000M,node=1,billing=4", tresAlloc: "cpu=4,mem=2000M,node=1,billing=4",
    submitTime: START, eligibleTime: START, startTime: START, endTime: START + 100,
    steps: [makeStep({ jobId: 40, stepId: -5, cpus: 4, usage: usage({ maxRssKib: 102400, userCpuSec: 150, systemCpuSec: 50.4 }) })],
    ...p,
  });
}

const text = (job: Job, now = NOW) => seffText(seffFigures(job, "oracle", now));

describe("seff's arithmetic and layout", () => {
  it("a finished job: CPU utilized over core-walltime, memory over the allocation, one task", () => {
    expect(text(fourCpuJob())).toBe(
      [
        "Job ID: 40",
        "Cluster: oracle",
        "User/Group: alice/users",
        "State: COMPLETED (exit code 0)",
        "Nodes: 1",
        "Cores per node: 4",
        "CPU Utilized: 00:03:20",
        "CPU Efficiency: 50.00% of 00:06:40 core-walltime",
        "Job Wall-clock time: 00:01:40",
        "Memory Utilized: 100.00 MB",
        "Memory Efficiency: 5.00% of 1.95 GB",
        "",
      ].join("\n"),
    );
  });

  it("several tasks: the largest step's MaxRSS times its tasks, an estimate; per-core memory for --mem-per-cpu", () => {
    const job = fourCpuJob({
      numCpus: 8, numNodes: 2, nodelist: "n[1-2]", memPerCpuMib: 256, tresAlloc: "cpu=8,mem=2G,node=2,billing=8",
      steps: [
        makeStep({ jobId: 40, stepId: -5, usage: usage({ maxRssKib: 8000, userCpuSec: 0.3 }) }),
        makeStep({ jobId: 40, stepId: 0, ntasks: 4, usage: usage({ maxRssKib: 4096, userCpuSec: 99.3 }) }),
        makeStep({ jobId: 40, stepId: 1, ntasks: 2, usage: usage({ maxRssKib: 9000, userCpuSec: 10.3 }) }),
      ],
    });
    const lines = text(job).split("\n");
    expect(lines.slice(4)).toEqual([
      "Nodes: 2",
      "Cores per node: 4",
      "CPU Utilized: 00:01:50",
      "CPU Efficiency: 13.75% of 00:13:20 core-walltime",
      "Job Wall-clock time: 00:01:40",
      "Memory Utilized: 17.58 MB (estimated maximum)",
      "Memory Efficiency: 0.86% of 2.00 GB (256.00 MB/core)",
      "",
    ]);
  });

  it("per-node memory, no step measured: 0.00 MB, an estimate over the per-node share", () => {
    const job = fourCpuJob({ numNodes: 2, nodelist: "n[1-2]", tresAlloc: "cpu=4,mem=4000M,node=2,billing=4", steps: [] });
    expect(text(job).split("\n").slice(6)).toEqual([
      "CPU Utilized: 00:00:00",
      "CPU Efficiency: 0.00% of 00:06:40 core-walltime",
      "Job Wall-clock time: 00:01:40",
      "Memory Utilized: 0.00 MB (estimated maximum)",
      "Memory Efficiency: 0.00% of 3.91 GB (1.95 GB/node)",
      "",
    ]);
  });

  it("one CPU prints Cores: 1 instead of nodes; a failed job shows its exit code, a cancelled one 0", () => {
    const one = fourCpuJob({ numCpus: 1, state: "FAILED", exitCode: 3 });
    expect(text(one).split("\n").slice(3, 6)).toEqual(["State: FAILED (exit code 3)", "Cores: 1", "CPU Utilized: 00:03:20"]);
    expect(text(fourCpuJob({ state: "CANCELLED", exitCode: 15, cancelledBy: "0" }))).toContain("State: CANCELLED (exit code 0)\n");
  });

  it("a pending job: no efficiency; a running one: measured up to now and a warning", () => {
    const pending = fourCpuJob({ state: "PENDING", startTime: 0, endTime: 0, nodelist: "", steps: [] });
    expect(text(pending).split("\n").slice(3)).toEqual(["State: PENDING", "Cores: 1", "Efficiency not available for jobs in the PENDING state.", ""]);
    const running = fourCpuJob({ state: "RUNNING", endTime: START + 86400 });
    const lines = text(running, START + 90061).split("\n");
    expect(lines[3]).toBe("State: RUNNING");
    expect(lines[8]).toBe("Job Wall-clock time: 1-01:01:01");
    expect(lines[7]).toBe("CPU Efficiency: 0.06% of 4-04:04:04 core-walltime");
    expect(lines.at(-2)).toBe("WARNING: Efficiency statistics may be misleading for RUNNING jobs.");
  });

  it("an array element names its array id; GPUs, which seff does not show, come last", () => {
    const job = fourCpuJob({ jobId: 52, arrayJobId: 50, arrayTaskId: 2, tresAlloc: "cpu=4,mem=2000M,node=1,billing=4,gres/gpu=2" });
    const lines = text(job).split("\n");
    expect(lines.slice(0, 2)).toEqual(["Job ID: 52", "Array Job ID: 50_2"]);
    expect(lines.at(-2)).toBe("GPUs: 2");
  });

  it("sizes in seff's units and printf's rounding", () => {
    expect([0, 1, 1023, 1024, 1536, 1048576, 5 * 1024 ** 3].map(kibText)).toEqual(["0.00 MB", "1.00 KB", "1023.00 KB", "1.00 MB", "1.50 MB", "1.00 GB", "5.00 TB"]);
    expect([0.125, 0.375, 2.5, 1 / 3].map(fixed2)).toEqual(["0.12", "0.38", "2.50", "0.33"]);
    expect([tresMemKib("2000M"), tresMemKib("2G"), tresMemKib("512K"), tresMemKib("100"), tresMemKib(undefined)]).toEqual([2048000, 2097152, 512, 102400, 0]);
  });
});

describe("the seff command", () => {
  const jobs = [fourCpuJob(), fourCpuJob({ jobId: 61, arrayJobId: 60, arrayTaskId: 1 }), fourCpuJob({ jobId: 62, arrayJobId: 60, arrayTaskId: 2, user: "bob" })];

  it("an unknown job: 'Job not found.' on stderr, status 2; a malformed id the same", async () => {
    for (const arg of ["999", "abc"]) {
      const r = await seffMain([arg], fakePort({ jobs, now: NOW }).port);
      expect(r).toEqual({ stdout: "", stderr: "Job not found.\n", exitCode: 2 });
    }
  });

  it("usage without exactly one job id or with -h; -v prints its version; both exit 1", async () => {
    const { port } = fakePort({ jobs, now: NOW });
    for (const argv of [[], ["1", "2"], ["-h", "40"]]) {
      const r = await seffMain(argv, port);
      expect([r.stdout.split("\n")[0], r.exitCode]).toEqual(["Usage: seff [Options] <Jobid>", 1]);
    }
    expect(await seffMain(["-v"], port)).toEqual({ stdout: "seff Version 2.1\n", stderr: "", exitCode: 1 });
    expect((await seffMain(["-x", "40"], port)).stderr).toBe("Unknown option: x\n");
  });

  it("asks the controller for the job with its steps and finished jobs; A_T picks the array element", async () => {
    const { port, calls } = fakePort({ jobs, now: NOW });
    const r = await seffMain(["60_2"], port);
    expect(calls.listJobs).toEqual([{ includeFinished: true, includeSteps: true, jobIds: [60] }]);
    expect(r.stdout.split("\n").slice(0, 4)).toEqual(["Job ID: 62", "Array Job ID: 60_2", "Cluster: oracle", "User/Group: bob/users"]);
  });

  it("-d prints the raw figures first", async () => {
    const r = await seffMain(["-d", "40"], fakePort({ jobs, now: NOW }).port);
    expect(r.stdout.split("\n").slice(0, 4)).toEqual([
      "Slurm data: JobID ArrayJobID User Group State Clustername Ncpus Nnodes Ntasks Reqmem PerNode Cput Walltime Mem ExitStatus",
      "Slurm data: 40  alice users COMPLETED oracle 4 1 1 2048000 1 200 100 102400 0",
      "",
      "Job ID: 40",
    ]);
  });
});
