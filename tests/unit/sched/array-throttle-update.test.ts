/**
 * `scontrol update JobId=<array> ArrayTaskThrottle=N` (conformance
 * x-array-update-throttle): the new limit shows in the pending remainder's
 * task string and bounds how many tasks the scheduler starts at once.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { ALICE, ROOT, cluster, spec, submit } from "./builders.ts";
import type { Requester } from "../../../src/sched/model/commands.ts";

const update = (jobIds: string[], fields: Record<string, string>, by: Requester = ROOT) =>
  ({ v: 1 as const, type: "updateJob" as const, at: 20, jobIds, action: "update", fields, by });

describe("ArrayTaskThrottle update", () => {
  it("changes the throttle of a pending array", () => {
    const c = cluster();
    c.run(submit(spec({ array: "1-10%3", hold: true })));
    const r = c.run(update(["1"], { ArrayTaskThrottle: "2" }));
    expect(r.items).toEqual([{ id: "1", error: "", errorCode: 0 }]);
    const job = c.state.jobs.get(1)!;
    expect(job.info.arrayTaskStr).toBe("1-10%2");
    expect(job.info.arrayMaxTasks).toBe(2);
    c.run({ v: 1, type: "updateJob", at: 21, jobIds: ["1"], action: "release", fields: {}, by: ROOT });
    const pass = schedule(c.state, 22);
    expect(pass.decisions).toHaveLength(2);
  });

  it("0 lifts the limit; bad values and other users' jobs are refused; a job not an array takes it silently (oracle 22.05: exit 0)", () => {
    const c = cluster();
    c.run(submit(spec({ array: "1-4%1", hold: true })));
    c.run(submit(spec({ hold: true })));
    c.run(update(["1"], { ArrayTaskThrottle: "0" }));
    expect(c.state.jobs.get(1)!.info.arrayTaskStr).toBe("1-4");
    expect(c.run(update(["1"], { ArrayTaskThrottle: "x" })).items[0]?.error).toBe("Invalid ArrayTaskThrottle value");
    expect(c.run(update(["2"], { ArrayTaskThrottle: "2" })).items[0]?.error).toBe("");
    expect(c.state.jobs.get(2)!.arrayThrottle).toBe(0);
    expect(c.run(update(["1"], { ArrayTaskThrottle: "2" }, ALICE)).items[0]?.error).toBe("Access/permission denied");
    expect(c.state.jobs.get(1)!.info.arrayTaskStr).toBe("1-4");
  });
});
