/**
 * A held job given --begin (Slurm 22.05, oracle; differential tester seeds 13, 194, 279):
 * scontrol EligibleTime= and sacct Eligible show its begin time, not Unknown as for a held
 * job without one; squeue %e says NONE while it waits for that begin without a limit.
 */
import { describe, expect, it } from "vitest";
import { formatJobRecord } from "../../../src/compat/format/scontrol-show-job.ts";
import { eligibleTimeOf } from "../../../src/compat/format/job-values.ts";
import { endTimeText } from "../../../src/compat/format/squeue-fields.ts";
import { formatIsoTime } from "../../../src/compat/format-time.ts";
import { cluster, spec, submit } from "../sched/builders.ts";

const NOW = 1_800_000_000;
const BEGIN = NOW + 3600;

function heldJob(beginTime: number) {
  const c = cluster();
  c.run(submit(spec({ name: "h", hold: true, beginTime }), NOW));
  const info = c.state.jobs.get(1)?.info;
  if (info === undefined) throw new Error("not submitted");
  return info;
}

describe("a held job with a begin time", () => {
  it("shows the begin time as its eligible time", () => {
    const job = heldJob(BEGIN);
    expect(eligibleTimeOf(job)).toBe(BEGIN);
    expect(formatJobRecord(job, { now: NOW, oneLiner: true, detail: false })).toContain(`EligibleTime=${formatIsoTime(BEGIN)}`);
  });

  it("without one stays Unknown", () => {
    const job = heldJob(0);
    expect(eligibleTimeOf(job)).toBe(0);
    expect(formatJobRecord(job, { now: NOW, oneLiner: true, detail: false })).toContain("EligibleTime=Unknown");
  });

  it("ends NONE in squeue while it waits for its begin (no limit), N/A without a begin", () => {
    const job = heldJob(BEGIN);
    expect(endTimeText({ job: { ...job, startTime: BEGIN }, now: NOW } as Parameters<typeof endTimeText>[0])).toBe("NONE");
    expect(endTimeText({ job: heldJob(0), now: NOW } as Parameters<typeof endTimeText>[0])).toBe("N/A");
  });

  it("a job cancelled pending shows its end within the second it ended in (oracle: squeue -o %e right after scancel)", () => {
    const end = NOW + 0.4; // the cancel's time has a fraction; the view's now is whole seconds
    const job = { ...heldJob(0), state: "CANCELLED", startTime: end, endTime: end };
    expect(endTimeText({ job, now: NOW } as Parameters<typeof endTimeText>[0])).toBe(formatIsoTime(NOW));
  });

  it("a running job without a limit ends NONE", () => {
    const job = { ...heldJob(0), state: "RUNNING", startTime: NOW - 10, endTime: 0 };
    expect(endTimeText({ job, now: NOW } as Parameters<typeof endTimeText>[0])).toBe("NONE");
  });
});

describe("a held job's AccrueTime", () => {
  it("stays Unknown with a begin time, also when the view shows the begin as its StartTime", () => {
    const job = { ...heldJob(BEGIN), startTime: BEGIN };
    expect(formatJobRecord(job, { now: NOW, oneLiner: true, detail: false })).toContain("AccrueTime=Unknown");
    expect(formatJobRecord(heldJob(0), { now: NOW, oneLiner: true, detail: false })).toContain("AccrueTime=Unknown");
  });
});
