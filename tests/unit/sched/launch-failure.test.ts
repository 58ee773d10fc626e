/**
 * Issue 14: a batch launch that fails on its node (the agent refuses it, its stepd cannot set
 * the job up) is handled as Slurm 22.05 handles a fatal REQUEST_COMPLETE_BATCH_SCRIPT error:
 * the node is drained ("batch job complete failure"), the job is requeued (or FAILED with
 * JobLaunchFailure under --no-requeue), and the launch failure that makes MAX_BATCH_REQUEUE
 * holds it (JobHoldMaxRequeue) instead of requeueing it for ever. A late end report for an
 * earlier run of a requeued job (its run number is older) changes nothing.
 */
import { describe, expect, it } from "vitest";
import { LAUNCH_FAILURE_DRAIN_REASON, MAX_BATCH_REQUEUE, STALE_JOB_END } from "../../../src/sched/model/apply-run.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { ROOT, cluster, spec, submit } from "./builders.ts";

const update = (ids: string[], action: string, at: number): Command => ({ v: 1, type: "updateJob", at, jobIds: ids, action, fields: {}, by: ROOT });
const resume = (node: string, at: number): Command => ({ v: 1, type: "updateNode", at, nodes: [node], state: "RESUME", reason: "", by: ROOT });
const start = (c: ReturnType<typeof cluster>, at: number) => c.run({ v: 1, type: "startJobs", at, decisions: schedule(c.state, at).decisions });

describe("a batch launch that fails on its node", () => {
  it("drains the node, requeues the job, and holds it at the MAX_BATCH_REQUEUE-th failure instead of retrying for ever", () => {
    const c = cluster();
    const [id = 0] = c.run(submit(spec())).ids;
    const job = c.state.jobs.get(id)!;
    for (let attempt = 1; attempt <= MAX_BATCH_REQUEUE; attempt++) {
      const at = 100 * attempt;
      start(c, at);
      expect(job.info.state).toBe("RUNNING");
      const host = job.info.batchHost;
      c.run({ v: 1, type: "launchFailed", at: at + 1, jobId: id, node: host, reason: "spurd runs as uid 1000 and cannot start processes for uid 0", restarts: job.info.restarts });
      const node = c.state.nodes.get(host)!;
      expect([node.drain, node.info.reason]).toEqual([true, LAUNCH_FAILURE_DRAIN_REASON]);
      expect(job.info.state).toBe("PENDING");
      expect(job.info.restarts).toBe(attempt);
      c.run(resume(host, at + 2)); // an admin looked (so the test can use the same nodes again)
      if (attempt < MAX_BATCH_REQUEUE) expect([job.info.reason, job.info.heldByAdmin]).toEqual(["None", false]);
    }
    expect([job.info.reason, job.info.heldByAdmin, job.info.priority]).toEqual(["JobHoldMaxRequeue", true, 0]);
    expect(schedule(c.state, 1000).decisions).toEqual([]);
    // Released, it runs again (and may fail MAX_BATCH_REQUEUE more times before the next hold).
    c.run(update([String(id)], "release", 1001));
    start(c, 1002);
    expect(job.info.state).toBe("RUNNING");
    expect(job.launchFailures).toBeUndefined();
  });

  it("under --no-requeue ends the job FAILED (JobLaunchFailure) and drains the node; a stepd-reported failure drains its batch host", () => {
    const c = cluster();
    const [id = 0] = c.run(submit(spec({ noRequeue: true }))).ids;
    start(c, 20);
    const job = c.state.jobs.get(id)!;
    const host = job.info.batchHost;
    c.run({ v: 1, type: "jobEnded", at: 21, jobId: id, exitCode: 1, exitSignal: 0, outcome: "LAUNCH_FAILED", restarts: 0 });
    expect([job.info.state, job.info.reason]).toEqual(["FAILED", "JobLaunchFailure"]);
    expect(c.state.nodes.get(host)?.info.reason).toBe(LAUNCH_FAILURE_DRAIN_REASON);
  });

  it("a requeue of a job being cancelled does not happen: a launch failure during a cancel ends it CANCELLED", () => {
    const c = cluster();
    const [id = 0] = c.run(submit(spec())).ids;
    start(c, 20);
    c.run({ v: 1, type: "cancel", at: 21, signal: 0, batchOnly: false, by: ROOT, filter: { jobIds: [String(id)], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" } });
    const job = c.state.jobs.get(id)!;
    if (job.info.state === "RUNNING") c.run({ v: 1, type: "jobEnded", at: 22, jobId: id, exitCode: 1, exitSignal: 0, outcome: "LAUNCH_FAILED" });
    expect(job.info.state).toBe("CANCELLED");
  });
});

describe("an end report from an earlier run of a requeued job", () => {
  it("is rejected by apply and leaves the current run running; the current run's report ends it", () => {
    const c = cluster();
    const [id = 0] = c.run(submit(spec())).ids;
    const job = c.state.jobs.get(id)!;
    start(c, 20);
    c.run(update([String(id)], "requeue", 30));
    // Run 0 ends (the requeue's signal): the job goes back to the queue, then starts again as run 1.
    c.run({ v: 1, type: "jobEnded", at: 31, jobId: id, exitCode: 0, exitSignal: 15, outcome: "REQUEUE", restarts: 0 });
    expect([job.info.state, job.info.restarts]).toEqual(["PENDING", 1]);
    c.run(update([String(id)], "release", 32)); // a requeue by an admin pends until released or eligible
    job.info.eligibleTime = 0;
    start(c, 200);
    expect(job.info.state).toBe("RUNNING");
    // The agent sends run 0's end again (its first answer was lost): stale.
    const late = c.run({ v: 1, type: "jobEnded", at: 201, jobId: id, exitCode: 0, exitSignal: 0, outcome: "", restarts: 0 });
    expect(late.errorCode).toBe(STALE_JOB_END);
    expect(job.info.state).toBe("RUNNING");
    const lateFailure = c.run({ v: 1, type: "launchFailed", at: 202, jobId: id, node: job.info.batchHost, reason: "x", restarts: 0 });
    expect(lateFailure.errorCode).toBe(STALE_JOB_END);
    expect(job.info.state).toBe("RUNNING");
    expect(c.state.nodes.get(job.info.batchHost)?.drain).toBe(false);
    c.run({ v: 1, type: "jobEnded", at: 203, jobId: id, exitCode: 0, exitSignal: 0, outcome: "", restarts: 1 });
    expect(job.info.state).toBe("COMPLETED");
  });
});
