/** srun's Ctrl-C handling (src/compat/srun-interrupt.ts) replaying the oracle's recorded session. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { onInterrupt } from "../../../src/compat/srun-interrupt.ts";

const step = { jobId: 1750, stepId: 0, ntasks: 2, killWaitSec: 30, ownAllocation: true };

describe("srun on Ctrl-C", () => {
  it("prints what the oracle printed for Ctrl-C at +2 s, +4.5 s, +6 s and +6.3 s", () => {
    const recorded = readFileSync(join(__dirname, "../../fixtures/srun/interrupt-oracle.txt"), "utf8")
      .split("\n").filter((l) => l.startsWith("srun: "));
    const lines: string[] = [];
    let previous: number | undefined;
    let aborted = 0;
    for (const at of [2000, 4500, 6000, 6300]) {
      const r = onInterrupt(previous, at, step);
      lines.push(...r.lines);
      if (r.abort) aborted++;
      previous = at;
    }
    expect(lines).toEqual(recorded);
    expect(aborted).toBe(1);
  });

  it("one task is 'task 0'; inside an existing allocation (not checked on the oracle) srun leaves the job alone", () => {
    expect(onInterrupt(undefined, 0, { ...step, ntasks: 1 }).lines[1]).toBe("srun: StepId=1750.0 task 0: running");
    expect(onInterrupt(0, 500, { ...step, ownAllocation: false }).lines).not.toContain("srun: forcing job termination");
  });
});
