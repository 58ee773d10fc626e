import { describe, expect, it } from "vitest";
import {
  BATCH_STEP_ID,
  SRUN_ASYNC_OUTPUT_PATTERN,
  defaultOutputPattern,
  expandFilenamePattern,
  RECORD_LETTERS,
  resolveStdioPath,
  type FilenameContext,
} from "../../../src/compat/filename-pattern.ts";
import { goldenLines, goldenStdout, haveGoldens, keyValues } from "./golden.ts";

const plain: FilenameContext = {
  jobId: 128, arrayJobId: 0, arrayTaskId: -1, jobName: "myjob", user: "alice", nodeName: "node7", nodeIndex: 2,
};
const arrayElem: FilenameContext = { ...plain, jobId: 137, arrayJobId: 120, arrayTaskId: 17 };
const x = (p: string, ctx: FilenameContext = plain): string => expandFilenamePattern(p, ctx);

describe("expandFilenamePattern", () => {
  it.each([
    ["%j", "128"], ["%J", "128"], ["%x", "myjob"], ["%u", "alice"], ["%N", "node7"], ["%n", "2"],
    ["%t", "0"], ["%s", "batch"], ["%r", "0"], ["%S", ""], ["%A", "128"], ["%a", "4294967294"], ["%b", "4"],
    ["%%", "%"], ["%%j", "%j"], ["100%%", "100%"], ["plain.txt", "plain.txt"], ["", ""],
    ["%4j", "0128"], ["%1j", "128"], ["%0j", "128"], ["%10j", "0000000128"], ["%12j", "0000000128"],
    ["%3n", "002"], ["%5x", "myjob"], ["%5u", "alice"], ["%5N", "node7"], ["%3s", "batch"],
    ["%q", "%q"], ["%5q", "%5q"], ["%", "%"], ["a%", "a%"], ["%4", "%4"],
    ["slurm-%j.out", "slurm-128.out"], ["%x-%j.out", "myjob-128.out"], ["%u/%x/%j.%N.log", "alice/myjob/128.node7.log"],
  ])("%s → %s", (pattern, out) => {
    expect(x(pattern)).toBe(out);
  });

  it("array jobs use %A (array id) and %a / %b (task index)", () => {
    expect(x("slurm-%A_%a.out", arrayElem)).toBe("slurm-120_17.out");
    expect(x("%j", arrayElem)).toBe("137");
    expect(x("%3a", arrayElem)).toBe("017");
    expect(x("%b", arrayElem)).toBe("7");
    expect(x("%2b", arrayElem)).toBe("07");
    expect(x("%6A", arrayElem)).toBe("000120");
  });

  it("steps: %J is jobid.stepid and %s the step id, except the batch step", () => {
    const step0 = { ...plain, stepId: 0, taskId: 3 };
    expect(x("%J", step0)).toBe("128.0");
    expect(x("%6J", step0)).toBe("000128.0");
    expect(x("%s", step0)).toBe("0");
    expect(x("%2s", { ...step0, stepId: 4 })).toBe("04");
    expect(x("%t", step0)).toBe("3");
    expect(x("%J %s", { ...plain, stepId: BATCH_STEP_ID })).toBe("128 batch");
  });

  it("restart count and SLUID", () => {
    const c = { ...plain, restartCount: 1, sluid: "s0abc" };
    expect(x("%r-%3r-%S-%5S", c)).toBe("1-001-s0abc-s0abc");
  });

  it("any backslash disables all substitutions and backslashes are removed", () => {
    expect(x("a\\%j")).toBe("a%j");
    expect(x("%j\\")).toBe("%j");
    expect(x("\\\\%x-%j")).toBe("%x-%j");
    expect(x("%%\\")).toBe("%%");
  });
});

describe("defaults and paths", () => {
  it("default output names", () => {
    expect(defaultOutputPattern(false)).toBe("slurm-%j.out");
    expect(defaultOutputPattern(true)).toBe("slurm-%A_%a.out");
    expect(x(defaultOutputPattern(true), arrayElem)).toBe("slurm-120_17.out");
    expect(x(SRUN_ASYNC_OUTPUT_PATTERN, { ...plain, stepId: 3 })).toBe("slurm-128.3.out");
  });

  it("relative paths are taken from the working directory", () => {
    expect(resolveStdioPath("slurm-128.out", "/home/alice")).toBe("/home/alice/slurm-128.out");
    expect(resolveStdioPath("slurm-128.out", "/home/alice/")).toBe("/home/alice/slurm-128.out");
    expect(resolveStdioPath("/dev/null", "/home/alice")).toBe("/dev/null");
    expect(resolveStdioPath("out/x.log", "/")).toBe("/out/x.log");
  });
});

describe.skipIf(!haveGoldens)("goldens", () => {
  const workDir = "/tmp/slurm-oracle/jobs";

  it("scontrol show job StdOut/StdErr for a default pattern (118, 065)", () => {
    for (const [num, jobId] of [["118", 25], ["065", 20]] as const) {
      const kv = keyValues(goldenStdout(num));
      const path = resolveStdioPath(x(defaultOutputPattern(false), { ...plain, jobId }), workDir);
      expect(kv.get("StdOut")).toEqual([path]);
      expect(kv.get("StdErr")).toEqual([path]);
    }
  });

  it("array task files from --output=%x-%j.out (062, 119)", () => {
    const kv = keyValues(goldenStdout("062"));
    const tasks: [number, number][] = [[17, 3], [19, 2], [18, 1]];
    const expected = tasks.map(([jobId, arrayTaskId]) =>
      resolveStdioPath(x("%x-%j.out", { ...plain, jobName: "golden", jobId, arrayJobId: 17, arrayTaskId }), workDir),
    );
    expect(kv.get("StdOut")).toEqual(expected);
    const files = goldenLines("119");
    for (const f of ["golden-17.out", "golden-18.out", "golden-19.out", x("slurm-%j.out", { ...plain, jobId: 9 })]) {
      expect(files).toContain(f);
    }
  });
});

describe("the job record's share of a pattern (scontrol StdOut, oracle 22.05)", () => {
  it.each([
    ["x-%N-%J-%n-%t-%s-%u-%x-%A-%a-%j-%%.out", "x-%N-%J-%n-%t-%s-alice-myjob-128-4294967294-128-%%.out"],
    ["%N_%x_%j.out", "%N_myjob_128.out"],
    ["output-%A_%a-%J.o", "output-128_4294967294-%J.o"],
    // a width is not read there: the field stays as written (oracle 22.05, pending and running; differential seed 10744)
    ["%4j", "%4j"], ["%10j", "%10j"], ["%4x-%j", "%4x-128"], ["%4A", "%4A"],
    // "%%" gives one "%" and its second "%" starts the next field (oracle 22.05, differential seed 9655)
    ["%%j", "%128"], ["%%", "%%"], ["a%%b", "a%%b"], ["%%%j", "%%128"], ["%%x", "%myjob"], ["x%%j.out", "x%128.out"],
    ["%j%%", "128%%"], ["%%%%j", "%%%128"], ["%%A", "%128"],
  ])("%s → %s", (pattern, out) => {
    expect(expandFilenamePattern(pattern, plain, RECORD_LETTERS)).toBe(out);
  });
});
