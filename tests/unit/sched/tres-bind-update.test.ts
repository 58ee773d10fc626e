/**
 * `scontrol update JobId=N TresBind=gres/gpu:TYPE` (issue 21): the --tres-bind grammar, the job's
 * GPU binding follows as at submission, pending jobs only, a bad value changes nothing; and
 * scontrol knows the key (TresB... abbreviates it, TresPerNode stays distinct).
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { jobUpdateKey } from "../../../src/compat/format/scontrol-update.ts";
import { ROOT, cluster, spec, submit } from "./builders.ts";

const update = (jobIds: string[], fields: Record<string, string>) =>
  ({ v: 1 as const, type: "updateJob" as const, at: 20, jobIds, action: "update", fields, by: ROOT });

describe("TresBind update", () => {
  it("sets, replaces and clears a pending job's binding", () => {
    const c = cluster();
    c.run(submit(spec({ hold: true })));
    expect(c.run(update(["1"], { TresBind: "gres/gpu:closest" })).items[0]?.error).toBe("");
    expect(c.state.jobs.get(1)!.info.tresBind).toBe("gres/gpu:closest");
    expect(c.state.jobs.get(1)!.spec.gpuBind).toBe("closest");
    c.run(update(["1"], { TresBind: "gres/gpu:verbose,single:1" }));
    expect(c.state.jobs.get(1)!.info.tresBind).toBe(`gres/gpu:${c.state.jobs.get(1)!.spec.gpuBind}`);
    c.run(update(["1"], { TresBind: "" }));
    expect(c.state.jobs.get(1)!.info.tresBind).toBe("");
  });

  it("refuses another TRES or a bad type and leaves the job as it was; running jobs are refused", () => {
    const c = cluster();
    c.run(submit(spec({ hold: true })));
    c.run(update(["1"], { TresBind: "gres/gpu:closest" }));
    expect(c.run(update(["1"], { TresBind: "cpu:closest" })).items[0]?.error).toBe("Invalid --tres-bind argument: cpu:closest");
    expect(c.run(update(["1"], { TresBind: "gres/gpu:sideways" })).items[0]?.error).toMatch(/^Invalid --tres-bind argument/);
    expect(c.state.jobs.get(1)!.info.tresBind).toBe("gres/gpu:closest");
    c.run(submit(spec({})));
    c.run({ v: 1, type: "startJobs", at: 30, decisions: schedule(c.state, 30).decisions });
    expect(c.state.jobs.get(2)!.info.state).toBe("RUNNING");
    expect(c.run(update(["2"], { TresBind: "gres/gpu:closest" })).items[0]?.error).toBe("Job is no longer pending execution");
  });

  it("is a key scontrol knows, by its abbreviation too", () => {
    expect(jobUpdateKey("TresBind")).toBe("TresBind");
    expect(jobUpdateKey("tresb")).toBe("TresBind");
    expect(jobUpdateKey("TresPerNode")).toBe("TresPerNode");
  });
});
