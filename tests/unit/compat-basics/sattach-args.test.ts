/**
 * sattach's command line and --layout text (compat/sattach-args), as the
 * Slurm 22.05 oracle answers.
 */
import { describe, expect, it } from "vitest";
import { layoutText, parseSattachArgs } from "../../../src/compat/sattach-args.ts";

const usage = "Usage: sattach [options] <jobid.stepid>\n";

describe("parseSattachArgs", () => {
  it("JOB.STEP with -l and the filters", () => {
    expect(parseSattachArgs(["-l", "--output-filter=2", "--error-filter", "1", "12.3"], "v")).toEqual({
      kind: "run", params: { jobId: 12, stepId: 3, label: true, layout: false, quiet: false, outputFilter: 2, errorFilter: 1, inputFilter: -1 },
    });
  });

  it("refuses none or several ids, and an id without a step (usage on stdout, exit 1)", () => {
    expect(parseSattachArgs([], "v")).toEqual({ kind: "exit", stdout: usage, stderr: "sattach: error: too many parameters\n", exitCode: 1 });
    expect(parseSattachArgs(["1.0", "2.0"], "v")).toEqual({ kind: "exit", stdout: usage, stderr: "sattach: error: too many parameters\n", exitCode: 1 });
    expect(parseSattachArgs(["663"], "v")).toEqual({ kind: "exit", stdout: usage, stderr: "sattach: error: Failed to parse stepid from command line options\n", exitCode: 1 });
    expect(parseSattachArgs(["abc"], "v")).toEqual({ kind: "exit", stdout: usage, stderr: "sattach: error: Failed to parse stepid from command line options\n", exitCode: 1 });
  });

  it("bad options, --usage, -V", () => {
    expect(parseSattachArgs(["--bogus", "1.0"], "v")).toEqual({ kind: "exit", stdout: "", stderr: "sattach: unrecognized option '--bogus'\nTry \"sattach --help\" for more information\n", exitCode: 1 });
    expect(parseSattachArgs(["--usage"], "v")).toEqual({ kind: "exit", stdout: usage, stderr: "", exitCode: 0 });
    expect(parseSattachArgs(["-V"], "slurm 26.05.0")).toEqual({ kind: "exit", stdout: "slurm 26.05.0\n", stderr: "", exitCode: 0 });
  });
});

describe("layoutText", () => {
  it("matches the oracle's layout of 3 tasks on n[1-2]", () => {
    expect(layoutText("n[1-2]", [{ name: "n1", taskIds: [0, 1] }, { name: "n2", taskIds: [2] }])).toBe(
      "Job step layout:\n\t3 tasks, 2 nodes (n[1-2])\n\n\tNode 0 (n1), 2 task(s): 0 1 \n\tNode 1 (n2), 1 task(s): 2 \n",
    );
  });
});
