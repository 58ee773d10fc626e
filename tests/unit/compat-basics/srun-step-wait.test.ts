/**
 * srun's lines while a step waits for CPUs other steps hold (compat/srun-step-wait.ts), as
 * Slurm 22.05's srun printed them on the oracle (jobs 215, 216, 300, 301 of issue 21's check):
 * the first wait's end says "temporarily disabled", later ones "still disabled" under -v only,
 * -Q hides both and "Step created".
 */
import { describe, expect, it } from "vitest";
import { cancelledWaitLines, STEP_NODES_BUSY, waitEndedLines } from "../../../src/compat/srun-step-wait.ts";

const view = { jobId: 7, reason: STEP_NODES_BUSY, quiet: false, verbose: 0 };

describe("srun's step wait lines", () => {
  it("a step created after its first wait", () => {
    expect(waitEndedLines(view, 0, true)).toEqual([
      "srun: Job 7 step creation temporarily disabled, retrying (Requested nodes are busy)",
      "srun: Step created for job 7",
    ]);
  });

  it("a first wait that ends without a step, then later ones (-v only)", () => {
    expect(waitEndedLines(view, 0, false)).toEqual(["srun: Job 7 step creation temporarily disabled, retrying (Requested nodes are busy)"]);
    expect(waitEndedLines(view, 1, false)).toEqual([]);
    expect(waitEndedLines({ ...view, verbose: 1 }, 2, false)).toEqual(["srun: Job 7 step creation still disabled, retrying (Requested nodes are busy)"]);
    expect(waitEndedLines(view, 3, true)).toEqual(["srun: Step created for job 7"]);
  });

  it("-Q prints nothing", () => {
    expect([...waitEndedLines({ ...view, quiet: true }, 0, true), ...waitEndedLines({ ...view, quiet: true }, 0, false)]).toEqual([]);
  });

  it("Ctrl-C while waiting", () => {
    expect(cancelledWaitLines(7, 2)).toEqual([
      "srun: Cancelled pending job step with signal 2",
      "srun: error: Unable to create step for job 7: Job/step already completing or completed",
    ]);
  });
});
