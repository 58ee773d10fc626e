/**
 * Submission limits (ctld/submit-limits): the lengths slurmctld enforces, each just at and
 * just past its edge, with the text Slurm prints (checked against the oracle: a 5 MB
 * script, -J / --comment of 1025 characters and -o of 4100 are refused; 1024 pass), the
 * max_script_size setting, and names/paths that were not UTF-8.
 */
import { describe, expect, it } from "vitest";
import { checkSubmitLimits, FIELD_LENGTH_MAX, MAX_SCRIPT_BYTES_DEFAULT, NOT_UTF8_MESSAGE, submitLimitsFrom, TOO_LONG_MESSAGE } from "../../../src/ctld/submit-limits.ts";
import { emptyJobSpec } from "../../../src/sched/model/records.ts";
import type { JobSpecP } from "../../../src/sched/model/types.ts";

const spec = (over: Partial<JobSpecP>): JobSpecP => ({ ...emptyJobSpec(), script: "#!/bin/sh\ntrue\n", ...over }) as JobSpecP;
const defaults = submitLimitsFrom("");

describe("submission limits", () => {
  it("a batch script up to max_script_size (4 MB by default) passes, one byte more is refused", () => {
    expect(defaults.maxScriptBytes).toBe(MAX_SCRIPT_BYTES_DEFAULT);
    const at = "#".repeat(MAX_SCRIPT_BYTES_DEFAULT);
    expect(checkSubmitLimits(spec({ script: at }), defaults)).toBeUndefined();
    expect(checkSubmitLimits(spec({ script: `${at}x` }), defaults)).toBe(TOO_LONG_MESSAGE);
    // bytes, not characters: 2-byte characters count twice
    expect(checkSubmitLimits(spec({ script: "é".repeat(MAX_SCRIPT_BYTES_DEFAULT / 2 + 1) }), defaults)).toBe(TOO_LONG_MESSAGE);
  });

  it("SchedulerParameters=max_script_size=N moves the edge", () => {
    const small = submitLimitsFrom("bf_window=10,max_script_size=100");
    expect(small.maxScriptBytes).toBe(100);
    expect(checkSubmitLimits(spec({ script: "x".repeat(100) }), small)).toBeUndefined();
    expect(checkSubmitLimits(spec({ script: "x".repeat(101) }), small)).toBe(TOO_LONG_MESSAGE);
    expect(submitLimitsFrom("max_script_size=junk").maxScriptBytes).toBe(MAX_SCRIPT_BYTES_DEFAULT);
  });

  it.each(Object.entries(FIELD_LENGTH_MAX))("%s: %i characters pass, one more is refused", (field, max) => {
    expect(checkSubmitLimits(spec({ [field]: "a".repeat(max) }), defaults)).toBeUndefined();
    expect(checkSubmitLimits(spec({ [field]: "a".repeat(max + 1) }), defaults)).toBe(TOO_LONG_MESSAGE);
  });

  it("Slurm's lengths as the oracle showed them", () => {
    expect(FIELD_LENGTH_MAX).toMatchObject({ name: 1024, comment: 1024, stdOut: 4096, dependency: 131072 });
  });

  it("a name or path that was not UTF-8 is refused, never changed", () => {
    for (const field of ["stdOut", "stdErr", "stdIn", "workDir", "name"]) {
      expect(checkSubmitLimits(spec({ [field]: "/tmp/a\uFFFDb" }), defaults), field).toBe(NOT_UTF8_MESSAGE);
    }
    expect(checkSubmitLimits(spec({ stdOut: "/tmp/café-%j.out" }), defaults)).toBeUndefined();
  });
});
