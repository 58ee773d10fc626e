/**
 * --deadline and --time-min at submission, as 22.05's controller checks them (oracle, 2026-12-05, the
 * shared 22.05 cluster, MaxTime=INFINITE): a past deadline is "Requested time limit is invalid"; a
 * time-min that is INFINITE, above the time limit or past the deadline is "Invalid time-min
 * specification"; everything else below was accepted there.
 */
import { describe, expect, it } from "vitest";
import { timeSpecRefusal } from "../../../src/sched/model/apply-submit.ts";
import { TIME_INFINITE } from "../../../src/compat/parse-time.ts";
import { cluster, spec, submit } from "./builders.ts";

const NOW = 1796470000;
const LIMIT = "Requested time limit is invalid (missing or exceeds some limit)";
const TIME_MIN = "Invalid time-min specification (exceeds job's time or other limits)";

describe("submission time checks", () => {
  it.each([
    // [what, deadline offset (undefined: none), --time-min, -t, refusal]
    ["--deadline=now-1hour", -3600, undefined, undefined, LIMIT],
    ["--deadline=now-1", -1, undefined, undefined, LIMIT],
    ["--deadline=now", 0, undefined, undefined, ""],
    ["--deadline=now+10", 10, undefined, undefined, ""],
    ["--deadline=now+10 -t 5", 10, undefined, 5, ""],
    ["--deadline=now+10 --time-min=1", 10, 1, undefined, TIME_MIN],
    ["--deadline=now+100 --time-min=1", 100, 1, undefined, ""],
    ["--deadline=now+10 --time-min=0", 10, TIME_INFINITE, undefined, TIME_MIN],
    ["--deadline=now+100 --time-min=2 -t 1", 100, 2, 1, TIME_MIN],
    ["--time-min=2 -t 1", undefined, 2, 1, TIME_MIN],
    ["--time-min=0", undefined, TIME_INFINITE, undefined, TIME_MIN],
    ["--time-min=unlimited -t 5", undefined, TIME_INFINITE, 5, TIME_MIN],
    ["--time-min=5", undefined, 5, undefined, ""],
  ] as const)("%s", (_what, offset, timeMin, limit, refusal) => {
    const deadline = offset === undefined ? 0 : NOW + offset;
    expect(timeSpecRefusal({ deadline, timeMinMin: timeMin }, limit, NOW + 0.4)).toBe(refusal);
  });

  it("apply refuses with the command's own time, so every replica agrees", () => {
    const c = cluster();
    const past = c.run(submit(spec({ deadline: 1000 }), 1001));
    expect(past.error).toBe(LIMIT);
    expect(c.run(submit(spec({ deadline: 1000 }), 1000)).error).toBe("");
    expect(c.run(submit(spec({ timeMinMin: 2, timeLimitMin: 1 }), 1000)).error).toBe(TIME_MIN);
  });
});
