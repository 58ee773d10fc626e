/** dueCommands: what time alone makes due (time limits, --signal warnings, silent nodes), and that apply re-checks it. */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { dueCommands } from "../../../src/sched/model/due.ts";
import { CONF, cluster, spec, submit } from "./builders.ts";

function withRunningJob(over: Parameters<typeof spec>[0]) {
  const c = cluster();
  const [id] = c.run(submit(spec(over))).ids;
  c.run({ v: 1, type: "startJobs", at: 100, decisions: schedule(c.state, 100).decisions });
  expect(c.state.jobs.get(id ?? 0)?.info.state).toBe("RUNNING");
  return { c, id: id ?? 0 };
}
const never = (): number => 0;

describe("dueCommands", () => {
  it("asks for timeLimitReached at the limit, not a second before, and apply ends the job once", () => {
    const { c, id } = withRunningJob({ timeLimitMin: 1 });
    expect(dueCommands(c.state, 159, never)).toEqual([]);
    const due = dueCommands(c.state, 160, never);
    expect(due).toEqual([{ v: 1, type: "timeLimitReached", at: 160, jobId: id }]);
    c.run(due[0]!);
    expect(c.state.jobs.get(id)?.endRequested).toBe("TIMEOUT");
    // The job is being ended: nothing more is due for it.
    expect(dueCommands(c.state, 200, never)).toEqual([]);
  });

  it("a limit raised after the command was made: apply ignores the late command", () => {
    const { c, id } = withRunningJob({ timeLimitMin: 1 });
    const [late] = dueCommands(c.state, 160, never);
    c.state.jobs.get(id)!.info.timeLimitMin = 10;
    c.run(late!);
    expect(c.state.jobs.get(id)?.endRequested).toBe("");
  });

  it("asks for signalBeforeEnd before the limit, once per run", () => {
    const { c, id } = withRunningJob({ timeLimitMin: 1, signal: "10@30" });
    expect(dueCommands(c.state, 129, never)).toEqual([]);
    const due = dueCommands(c.state, 130, never);
    expect(due).toEqual([{ v: 1, type: "signalBeforeEnd", at: 130, jobId: id }]);
    c.run(due[0]!);
    expect(dueCommands(c.state, 140, never)).toEqual([]);
  });

  it("fails a node heard from before and silent past SlurmdTimeout, never one not heard from yet", () => {
    const c = cluster();
    const timeout = c.state.config.slurmdTimeoutSec;
    const first = [...c.state.nodes.keys()][0]!;
    const heard = (node: string): number => (node === first ? 1000 : 0);
    expect(dueCommands(c.state, 1000 + timeout, heard)).toEqual([]);
    expect(dueCommands(c.state, 1001 + timeout, heard)).toEqual([{ v: 1, type: "nodeFail", at: 1001 + timeout, node: first, reason: "Not responding" }]);
  });

  it("never fails a silent node when SlurmdTimeout=0 (Slurm: the node is not tested)", () => {
    const c = cluster(CONF.replace("DefMemPerCPU=256", "DefMemPerCPU=256\nSlurmdTimeout=0"));
    expect(c.state.config.slurmdTimeoutSec).toBe(0);
    const heard = (): number => 1000;
    expect(dueCommands(c.state, 1_000_000, heard)).toEqual([]);
  });
});
