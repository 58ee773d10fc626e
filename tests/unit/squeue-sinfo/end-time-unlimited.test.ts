/**
 * A running job without a time limit (partition MaxTime=INFINITE, -t UNLIMITED): Slurm
 * 22.05 (live oracle, 2026-12-03) prints squeue %e / EndTime as NONE, and --json end_time
 * as the start plus 365 days (1796330040 → 1827866040); a pending one prints N/A.
 */
import { describe, expect, it } from "vitest";
import { squeueMain } from "../../../src/cli/squeue.ts";
import { fakePort, makeJob } from "../sacct-scontrol/helpers.ts";
import { expectedEndTime } from "../../../src/compat/format/job-values.ts";

process.env.TZ = "UTC";

const START = 1796330040;

describe("squeue End time of jobs without a time limit", () => {
  const jobs = [
    makeJob({ jobId: 1, state: "RUNNING", startTime: START, submitTime: START - 1, endTime: 0, timeLimitMin: undefined }),
    makeJob({ jobId: 2, state: "PENDING", submitTime: START - 1, endTime: 0, timeLimitMin: undefined }),
  ];

  it("%e: NONE running, N/A pending (oracle)", async () => {
    const r = await squeueMain(["-h", "-o", "%i|%e"], fakePort({ now: START + 2, jobs }).port);
    expect(r.stdout.split("\n").filter(Boolean).sort()).toEqual(["1|NONE", "2|N/A"]);
  });

  it("--json end_time: start + 365 days for the running one (oracle)", () => {
    expect(expectedEndTime(jobs[0] as (typeof jobs)[number])).toBe(1827866040);
    expect(expectedEndTime(jobs[1] as (typeof jobs)[number])).toBe(0);
  });
});
