/**
 * `squeue --json=v0.0.38` (22.05's shape; a bare --json prints the current data_parser, see
 * tests/unit/rest/cli-json.test.ts) against goldens 014 (byte for byte) and 055 (the busy
 * cluster: every job Spur models has the golden's keys in the golden's order,
 * and the values Spur tracks are equal).
 */
import { describe, expect, it } from "vitest";
import { squeueMain } from "../../../src/cli/squeue.ts";
import { busyJobs } from "./fixtures.ts";
import { expected, fakePort, golden } from "./golden.ts";

process.env.TZ = "UTC";

type JsonJob = Record<string, unknown>;

/** Keys whose values depend on controller internals Spur does not model. */
const UNMODELED = new Set([
  "association_id", // accounting association ids
  "accrue_time", // Spur does not track age-priority accrual separately
  "end_time", // Slurm reports start+INFINITE for a pending job with a begin time
  "max_nodes", // the request's upper node bound is not in JobInfo
  "job_resources", // compared below without core numbers
]);

const withoutCores = (res: unknown): unknown => {
  const r = res as { allocated_nodes?: Record<string, unknown>[] } | undefined;
  return r === undefined ? undefined : { ...r, allocated_nodes: r.allocated_nodes?.map(({ sockets: _s, ...rest }) => rest) };
};

/** The goldens' `--json` is 22.05's; Spur prints that shape when v0.0.38 is asked for. */
const legacy = (argv: string[]): string[] => argv.map((a) => (a === "--json" ? "--json=v0.0.38" : a));

describe("squeue --json=v0.0.38", () => {
  it("matches golden 014 (no jobs) byte for byte", async () => {
    const g = golden("014");
    const result = await squeueMain(legacy(g.argv), fakePort({ jobs: [], now: 1796214930 }));
    expect(result).toEqual(expected(g));
  });

  it("has golden 055's shape and values for the busy cluster", async () => {
    const g = golden("055");
    const result = await squeueMain(legacy(g.argv), fakePort({ jobs: busyJobs(), now: 1796214967 }));
    expect(result.exitCode).toBe(0);
    expect(result.stdout.endsWith("}")).toBe(true);
    const ours = JSON.parse(result.stdout) as { meta: unknown; errors: unknown[]; jobs: JsonJob[] };
    const theirs = JSON.parse(g.stdout) as { meta: unknown; errors: unknown[]; jobs: JsonJob[] };
    expect(ours.meta).toEqual(theirs.meta);
    expect(ours.errors).toEqual([]);
    expect(ours.jobs.map((j) => j.job_id)).toEqual(busyJobs().map((j) => j.jobId));
    for (const job of ours.jobs) {
      const gj = theirs.jobs.find((x) => x.job_id === job.job_id);
      expect(gj, `golden has job ${job.job_id}`).toBeDefined();
      expect(Object.keys(job)).toEqual(Object.keys(gj ?? {}));
      for (const [key, value] of Object.entries(job)) {
        if (UNMODELED.has(key)) continue;
        expect([job.job_id, key, value]).toEqual([job.job_id, key, gj?.[key]]);
      }
      expect(withoutCores(job.job_resources)).toEqual(withoutCores(gj?.job_resources));
    }
  });

  it("prints doubles with a fraction and escapes slashes as json-c does", async () => {
    const result = await squeueMain(["--json=v0.0.38"], fakePort({ jobs: busyJobs().slice(2, 3), now: 1796214967 }));
    expect(result.stdout).toContain('"billable_tres": 2.0,');
    expect(result.stdout).toContain('"command": "\\/tmp\\/slurm-oracle\\/jobs\\/golden_job.sh",');
    expect(result.stdout).toContain('"flags": [\n        "JOB_WAS_RUNNING"\n      ],');
  });
});
