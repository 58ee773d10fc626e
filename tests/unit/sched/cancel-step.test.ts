/**
 * scancel J.S (one step, not the job) and scancel -s STOP/CONT (the STOPPED flag), as the
 * oracle shows them: `scancel 94.0` leaves the job and its batch script running and the
 * step CANCELLED with signal 9; `scancel -s STOP` shows the job STOPPED (ST) until a CONT.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { jobStateCompact, jobStateLong } from "../../../src/compat/states.ts";
import { ALICE, ROOT, cluster, spec, submit } from "./builders.ts";

const filter = (jobIds: string[]) => ({ jobIds, user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" });

function runningJobWithSteps() {
  const c = cluster();
  c.run(submit(spec()));
  const r = schedule(c.state, 20);
  c.run({ v: 1, type: "startJobs", at: 20, decisions: r.decisions });
  const alloc = c.state.jobs.get(1)?.info.alloc ?? [];
  for (const name of ["a", "b"]) c.run({ v: 1, type: "stepCreate", at: 21, jobId: 1, name, alloc, ntasks: 1 });
  return c;
}

describe("scancel J.S", () => {
  it("cancels that step only: the job runs on, the step is CANCELLED by signal 9, its nodes kill its tasks", () => {
    const c = runningJobWithSteps();
    const r = c.run({ v: 1, type: "cancel", at: 30, filter: filter(["1.0"]), signal: 0, batchOnly: false, by: ROOT });
    expect(r.items).toEqual([{ id: "1.0", error: "", errorCode: 0 }]);
    expect(r.events).toEqual([{ type: "signalJob", jobId: 1, nodes: expect.any(Array), signal: 0, reason: "", batchOnly: false, stepId: 0 }]);
    const info = c.state.jobs.get(1)?.info;
    expect(info?.state).toBe("RUNNING");
    expect(info?.steps.map((s) => [s.stepId, s.state, s.exitSignal])).toEqual([[0, "CANCELLED", 9], [1, "RUNNING", 0]]);
  });

  it("a signal goes to the step's tasks and leaves its state; unknown and ended steps fail in Slurm's words", () => {
    const c = runningJobWithSteps();
    const sig = c.run({ v: 1, type: "cancel", at: 30, filter: filter(["1.1"]), signal: 10, batchOnly: false, by: ROOT });
    expect(sig.events.map((e) => (e.type === "signalJob" ? [e.signal, e.stepId] : []))).toEqual([[10, 1]]);
    expect(c.state.jobs.get(1)?.info.steps[1]?.state).toBe("RUNNING");
    c.run({ v: 1, type: "cancel", at: 31, filter: filter(["1.0"]), signal: 0, batchOnly: false, by: ROOT });
    const again = c.run({ v: 1, type: "cancel", at: 32, filter: filter(["1.0", "1.7", "9.0"]), signal: 0, batchOnly: false, by: ROOT });
    expect(again.items).toEqual([
      { id: "1.0", error: "Job/step already completing or completed", errorCode: 2021 },
      { id: "1.7", error: "Invalid job id specified", errorCode: 2017 },
      { id: "9.0", error: "Invalid job id specified", errorCode: 2017 },
    ]);
    expect(again.events).toEqual([]);
    const denied = c.run({ v: 1, type: "cancel", at: 33, filter: filter(["1.1"]), signal: 0, batchOnly: false, by: ALICE });
    expect(denied.items[0]?.errorCode).toBe(2002);
  });

  it("step ids and job ids together: each acts on its own target", () => {
    const c = runningJobWithSteps();
    c.run(submit(spec()));
    const r = c.run({ v: 1, type: "cancel", at: 30, filter: filter(["1.1", "2"]), signal: 0, batchOnly: false, by: ROOT });
    expect(r.items.map((i) => [i.id, i.errorCode])).toEqual([["1.1", 0], ["2", 0]]);
    expect(c.state.jobs.get(1)?.info.state).toBe("RUNNING");
    expect(c.state.jobs.get(2)?.info.state).toBe("CANCELLED");
  });
});

describe("scancel -s STOP / CONT", () => {
  it("STOP shows the running job STOPPED (ST), CONT clears it, and the job's end drops it", () => {
    const c = runningJobWithSteps();
    c.run({ v: 1, type: "cancel", at: 30, filter: filter(["1"]), signal: 19, batchOnly: false, by: ROOT });
    const info = () => c.state.jobs.get(1)?.info ?? { state: "", stateFlags: [] };
    expect([jobStateLong(info()), jobStateCompact(info())]).toEqual(["STOPPED", "ST"]);
    c.run({ v: 1, type: "cancel", at: 31, filter: filter(["1"]), signal: 18, batchOnly: false, by: ROOT });
    expect(jobStateLong(info())).toBe("RUNNING");
    c.run({ v: 1, type: "cancel", at: 32, filter: filter(["1"]), signal: 19, batchOnly: false, by: ROOT });
    c.run({ v: 1, type: "cancel", at: 33, filter: filter(["1"]), signal: 0, batchOnly: false, by: ROOT });
    c.run({ v: 1, type: "jobEnded", at: 34, jobId: 1, exitCode: 0, exitSignal: 15, outcome: "CANCELLED" });
    expect(jobStateLong(info())).toBe("CANCELLED");
  });
});
