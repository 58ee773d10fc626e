import { describe, expect, it } from "vitest";
import { resolveUpdateTimes } from "../../../src/ctld/update-times.ts";

describe("ctld/update-times: StartTime is resolved before it is logged", () => {
  const now = 1_800_000_000;
  it("a point in time becomes uts<epoch>, any case of the key", () => {
    expect(resolveUpdateTimes({ StartTime: "now+1hour", TimeLimit: "10" }, now)).toEqual({ StartTime: `uts${now + 3600}`, TimeLimit: "10" });
    expect(resolveUpdateTimes({ starttime: "now" }, now)).toEqual({ starttime: `uts${now}` });
  });
  it("a zone-dependent date is fixed here, so apply() never reads the zone", () => {
    const r = resolveUpdateTimes({ StartTime: "2027-01-02T03:04:05" }, now);
    expect(r.StartTime).toBe(`uts${Math.floor(new Date(2027, 0, 2, 3, 4, 5).getTime() / 1000)}`);
  });
  it("text that does not parse is left for apply() to refuse in Slurm's words", () => {
    expect(resolveUpdateTimes({ StartTime: "bogus" }, now)).toEqual({ StartTime: "bogus" });
  });
});
