/**
 * End-to-end (issue 20): `seff JOBID` on the compiled binary for a real job that burns CPU on
 * two cores: the summary lines of the contributed seff, figures that agree with what sacct
 * prints for the same job (TotalCPU, Elapsed, AllocCPUS), and "Job not found." for a job that
 * does not exist. Where spurd measures usage (cgroups), the CPU burnt shows as utilized.
 * sreport on the same cluster: allocated CPU-seconds in the report window equal what sacct's
 * job records give for that window, and the cluster's capacity is its CPUs over the window.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { startCluster, eventually, jobEnded, type Cluster } from "./cluster.ts";
import { fixed2 } from "../../src/compat/format/seff.ts";

let c: Cluster;

beforeAll(async () => {
  c = startCluster(["--nodes", "1", "--cpus-per-node", "2", "--mem-per-node", "2000"]);
  await eventually("controller answering", () => (c.run(["sinfo"]).code === 0 ? true : undefined), 60_000);
});
afterAll(() => c?.down());

/** "[D-]HH:MM:SS" (seff) or sacct's "MM:SS.mmm" → seconds. */
function secs(text: string): number {
  const [days, clock] = text.includes("-") ? text.split("-") : ["0", text];
  const parts = (clock ?? "").split(":").map(Number);
  while (parts.length < 3) parts.unshift(0);
  return Number(days) * 86400 + (parts[0] ?? 0) * 3600 + (parts[1] ?? 0) * 60 + (parts[2] ?? 0);
}

/** sacct's MaxRSS text ("83452K", "200M") in KiB. */
function kib(text: string): number {
  const m = /^([0-9.]+)([KMG]?)$/.exec(text);
  return m === null ? 0 : Number(m[1]) * ({ "": 1 / 1024, K: 1, M: 1024, G: 1024 ** 2 }[m[2] ?? ""] ?? 1);
}

describe("seff", () => {
  it("summarises a finished CPU-burning job as seff does, with sacct's figures", async () => {
    // a fixed amount of work in the batch step (CPU seconds, whatever the load), then a two-task
    // step that holds more memory per node than the batch script: the largest MaxRSS times 2 tasks
    const burn = "perl -e '$i = 0; $i++ while $i < 1e8;'";
    const hold = "perl -e '$x = \"a\" x (40*1024*1024); $i = 0; $i++ while $i < 1e6;'";
    c.write("burn.sh", `#!/bin/bash\n${burn}\nsrun -n2 ${hold}\n`);
    const sub = c.run(["sbatch", "--parsable", "-J", "report-seff", "-n", "2", "--mem=500M", "burn.sh"]);
    expect(sub.code, sub.stderr).toBe(0);
    const id = sub.stdout.trim();
    expect(await jobEnded(c, id)).toBe("COMPLETED");

    const r = spawnSync(join(c.dir, "bin", "seff"), [id], { env: c.env, cwd: c.work, encoding: "utf8" });
    expect([r.status, r.stderr]).toEqual([0, ""]);
    const lines = r.stdout.split("\n");
    const cluster = c.run(["sacct", "-n", "-X", "-P", "-o", "Cluster", "-j", id]).stdout.trim();
    expect(lines.slice(0, 6)).toEqual([`Job ID: ${id}`, `Cluster: ${cluster}`, "User/Group: root/root", "State: COMPLETED (exit code 0)", "Nodes: 1", "Cores per node: 2"]);
    expect(lines[6]).toMatch(/^CPU Utilized: \d\d:\d\d:\d\d$/);
    expect(lines[7]).toMatch(/^CPU Efficiency: \d+\.\d\d% of \d\d:\d\d:\d\d core-walltime$/);
    expect(lines[8]).toMatch(/^Job Wall-clock time: \d\d:\d\d:\d\d$/);
    expect(lines.slice(11)).toEqual([""]);

    // the same records as sacct's job line and steps
    const [total, elapsed, cpus] = c.run(["sacct", "-n", "-X", "-P", "-o", "TotalCPU,Elapsed,AllocCPUS", "-j", id]).stdout.trim().split("|");
    const wall = secs(lines[8]?.slice("Job Wall-clock time: ".length) ?? "");
    expect(wall).toBe(secs(elapsed ?? ""));
    expect(lines[7]).toContain(` of ${new Date(wall * Number(cpus) * 1000).toISOString().slice(11, 19)} core-walltime`);
    const utilized = secs(lines[6]?.slice("CPU Utilized: ".length) ?? "");
    expect(Math.abs(utilized - secs(total ?? ""))).toBeLessThanOrEqual(1);
    const show = c.run(["scontrol", "-d", "show", "node", "n1"]).stdout;
    if (!(/Containment=(\S+)/.exec(show)?.[1] ?? "").startsWith("cgroup/")) return; // no usage measured
    expect(utilized).toBeGreaterThanOrEqual(1);
    const steps = c.run(["sacct", "-n", "-P", "-o", "JobID,MaxRSS,NTasks", "-j", id]).stdout.trim().split("\n").slice(1);
    const measured = steps.map((l) => l.split("|")).map(([step, rss, tasks]) => ({ step, kib: kib(rss ?? ""), tasks: Number(tasks) }));
    const largest = measured.reduce((a, b) => (b.kib > a.kib ? b : a));
    expect(largest.step).toBe(`${id}.0`);
    const memory = largest.kib * largest.tasks;
    expect(lines[9]).toBe(`Memory Utilized: ${fixed2(memory / 1024)} MB (estimated maximum)`);
    expect(lines[10]).toBe(`Memory Efficiency: ${fixed2((memory / 512000) * 100)}% of 500.00 MB (500.00 MB/node)`);
  });

  it("an unknown job: Job not found. on stderr, status 2; spur seff answers too", () => {
    const r = c.run(["seff", "999999"]);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, "", "Job not found.\n"]);
  });

  it("sreport cluster utilization and user topusage: sacct's CPU time inside the window, the cluster's CPUs over it", async () => {
    const sub = c.run(["sbatch", "--parsable", "-J", "report-sreport", "-n", "2", "--wrap", "sleep 2"]);
    expect(sub.code, sub.stderr).toBe(0);
    expect(await jobEnded(c, sub.stdout.trim())).toBe("COMPLETED");
    const r = c.run(["sreport", "-P", "-t", "seconds", "cluster", "utilization", "start=now-2days", "end=now+1hour"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const lines = r.stdout.split("\n");
    const m = /^Cluster Utilization (\S+) - (\S+)$/.exec(lines[1] ?? "");
    expect(m, lines[1]).not.toBeNull();
    const from = Date.parse(m?.[1] ?? "") / 1000;
    const to = Date.parse(m?.[2] ?? "") / 1000 + 1;
    expect(lines.slice(2, 5)).toEqual(["Usage reported in CPU Seconds", "-".repeat(80), "Cluster|Allocated|Down|PLND Down|Idle|Planned|Reported"]);
    const cluster = c.run(["sacct", "-n", "-X", "-P", "-o", "Cluster", "-j", sub.stdout.trim()]).stdout.trim();
    // a node's time counts from its (first) registration, SlurmdStartTime on a cluster that never restarted
    const nodes = c.run(["scontrol", "-o", "show", "node"]).stdout.trim().split("\n");
    const capacity = nodes.reduce((sum, line) => {
      const since = Date.parse(/SlurmdStartTime=(\S+)/.exec(line)?.[1] ?? "") / 1000;
      const cpus = Number(/CPUTot=(\d+)/.exec(line)?.[1] ?? 0);
      return sum + cpus * Math.max(0, to - Math.max(from, Math.floor(since)));
    }, 0);
    // the window (rounded to the hour) may end before the cluster registered: then no line, as slurmdbd
    const [name, allocated, down, pdown, idle, planned, reported] = (lines[5] ?? "").split("|").map((v, i) => (i === 0 ? v : Number(v))) as [string, ...number[]];
    if (capacity === 0) expect(lines[5]).toBe("");
    else {
      expect([name, down, pdown, lines[6]]).toEqual([cluster, 0, 0, ""]);
      expect(reported).toBe(capacity);
      expect((allocated ?? 0) + (idle ?? 0) + (planned ?? 0)).toBe(reported);
    }
    const held = c.run(["sacct", "-n", "-X", "-P", "-a", "-S", "now-3days", "-o", "Start,End,AllocCPUS"]).stdout.trim().split("\n");
    const expected = held.map((l) => l.split("|")).reduce((sum, [start, end, cpus]) => {
      const s = Date.parse(start ?? "") / 1000;
      const e = Date.parse(end ?? "") / 1000;
      return Number.isFinite(s) && Number.isFinite(e) ? sum + Math.max(0, Math.min(e, to) - Math.max(s, from)) * Number(cpus) : sum;
    }, 0);
    if (capacity > 0) expect(allocated).toBe(expected);
    const top = c.run(["sreport", "-p", "-t", "seconds", "user", "topusage", "start=now-2days", "end=now+1hour"]).stdout.split("\n");
    expect(top[1]).toMatch(/^Top 10 Users \S+ - \S+ \(\d+ secs\)$/);
    expect(top[4]).toBe("Cluster|Login|Proper Name|Account|Used|Energy|");
    if (expected > 0) expect(top[5]).toMatch(new RegExp(`^${cluster}\\|root\\|[^|]*\\|root\\|${expected}\\|0\\|$`));
  });
});
