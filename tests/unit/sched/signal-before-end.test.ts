/** --signal=[{R|B}:]SIG[@TIME]: when it is due, and the signalBeforeEnd command (sent once per run). */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { parseStoredSignal, signalDue, signalDueAt } from "../../../src/sched/model/apply-signal.ts";
import { ROOT, cluster, spec, submit } from "./builders.ts";

function running(signal: string, timeLimitMin: number | null = 10, startAt = 100) {
  const c = cluster();
  const over = timeLimitMin === null ? { signal } : { signal, timeLimitMin };
  const [id] = c.run(submit(spec(over))).ids;
  const r = schedule(c.state, startAt);
  c.run({ v: 1, type: "startJobs", at: startAt, decisions: r.decisions });
  const job = c.state.jobs.get(id ?? 0);
  if (job === undefined) throw new Error("no job");
  expect(job.info.state).toBe("RUNNING");
  return { c, job, id: id ?? 0 };
}

describe("--signal: the stored form", () => {
  it("reads the option parser's normalised text", () => {
    expect(parseStoredSignal("10@60")).toEqual({ signal: 10, beforeSec: 60, batchOnly: false });
    expect(parseStoredSignal("B:10@50")).toEqual({ signal: 10, beforeSec: 50, batchOnly: true });
    expect(parseStoredSignal("R:12@0")).toEqual({ signal: 12, beforeSec: 0, batchOnly: false });
    expect(parseStoredSignal("")).toBeUndefined();
    expect(parseStoredSignal("USR1")).toBeUndefined();
    expect(parseStoredSignal("0@60")).toBeUndefined();
  });
});

describe("--signal: when it is due", () => {
  it("is due TIME seconds before the end, not earlier", () => {
    const { job } = running("B:10@50", 1, 100);
    expect(job.info.startTime).toBe(100);
    expect(signalDueAt(job)).toBe(110);
    expect(signalDue(job, 109)).toBe(false);
    expect(signalDue(job, 110)).toBe(true);
  });

  it("is due at once when the time limit is shorter than TIME", () => {
    const { job } = running("10@600", 1, 100);
    expect(signalDue(job, 100)).toBe(true);
  });

  it("never for a job without a time limit or without --signal", () => {
    expect(signalDue(running("10@60", null).job, 1e12)).toBe(false);
    expect(signalDue(running("", 1).job, 1e12)).toBe(false);
  });
});

describe("--signal: the signalBeforeEnd command", () => {
  it("B: asks the agents to signal the batch shell only, once per run", () => {
    const { c, job, id } = running("B:10@50", 1, 100);
    const first = c.run({ v: 1, type: "signalBeforeEnd", at: 110, jobId: id });
    expect(first.events).toEqual([
      { type: "signalJob", jobId: id, nodes: job.info.alloc.map((a) => a.node), signal: 10, reason: "", batchOnly: true, stepsOnly: false },
    ]);
    expect(signalDue(job, 120)).toBe(false);
    // Issued again (a retry, or a replay after failover): nothing more is sent.
    expect(c.run({ v: 1, type: "signalBeforeEnd", at: 111, jobId: id }).events).toEqual([]);
  });

  it("the plain form signals the steps, not the batch shell", () => {
    const { c, id } = running("12@60", 5, 100);
    const r = c.run({ v: 1, type: "signalBeforeEnd", at: 340, jobId: id });
    expect(r.events[0]).toMatchObject({ signal: 12, batchOnly: false, stepsOnly: true });
  });

  it("does nothing for a job that is not running or is already ending", () => {
    const { c, job, id } = running("10@60", 5, 100);
    c.run({ v: 1, type: "timeLimitReached", at: 400, jobId: id });
    expect(signalDue(job, 400)).toBe(false);
    expect(c.run({ v: 1, type: "signalBeforeEnd", at: 400, jobId: id }).events).toEqual([]);
    expect(c.run({ v: 1, type: "signalBeforeEnd", at: 400, jobId: 999 }).events).toEqual([]);
  });

  it("is due again in the next run after a requeue", () => {
    const { c, job, id } = running("10@60", 5, 100);
    c.run({ v: 1, type: "signalBeforeEnd", at: 340, jobId: id });
    c.run({ v: 1, type: "updateJob", at: 350, jobIds: [String(id)], action: "requeue", fields: {}, by: ROOT });
    c.run({ v: 1, type: "jobEnded", at: 351, jobId: id, exitCode: 0, exitSignal: 15, outcome: "CANCELLED" });
    const r = schedule(c.state, 500);
    c.run({ v: 1, type: "startJobs", at: 500, decisions: r.decisions });
    expect(job.info.state).toBe("RUNNING");
    expect(job.info.startTime).toBe(500);
    expect(signalDue(job, 739)).toBe(false);
    expect(signalDue(job, 740)).toBe(true);
  });
});
