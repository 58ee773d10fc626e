/**
 * sacct over a day of 10k finished jobs with 1-2 steps each: the right
 * number of lines in fixed-width, -X and -P output, rows in id order with
 * array elements under their array, and ISO times as formatIsoTime prints
 * them. No timing here: the figures are in the performance report.
 */
import { describe, expect, it } from "vitest";
import { sacctMain } from "../../../src/cli/sacct.ts";
import { formatIsoTime } from "../../../src/compat/format-time.ts";
import { isoTimeText, resetTimeMemo } from "../../../src/compat/format/time-memo.ts";
import { fakePort } from "./helpers.ts";
import { MANY_NOW, manyFinishedJobs } from "./many-jobs.ts";

const JOBS = manyFinishedJobs(10000);
const sacct = (argv: string[]) => sacctMain(argv, fakePort({ jobs: JOBS, now: MANY_NOW }).port);
const lineCount = (text: string): number => text.split("\n").length - 1;
const steps = JOBS.reduce((n, j) => n + j.steps.length, 0);

describe("sacct with 10k jobs", () => {
  it("prints every job and step line under the two header lines", async () => {
    const r = await sacct([]);
    expect(r.exitCode).toBe(0);
    expect(lineCount(r.stdout)).toBe(2 + JOBS.length + steps);
    expect(lineCount((await sacct(["-X"])).stdout)).toBe(2 + JOBS.length);
    expect(lineCount((await sacct(["-P", "-n", "-o", "jobid,start,end"])).stdout)).toBe(JOBS.length + steps);
  });

  it("orders jobs by id with array elements under their array", async () => {
    const r = await sacct(["-X", "-P", "-n", "-o", "jobidraw,jobid"]);
    const keys = r.stdout.trimEnd().split("\n").map((l) => {
      const [raw = "", id = ""] = l.split("|");
      const [array = raw] = id.split("_");
      return [Number(array), Number(raw)] as const;
    });
    const sorted = [...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(keys).toEqual(sorted);
  });

  it("-j picks one job and its steps", async () => {
    const r = await sacct(["-n", "-j", "500"]);
    expect(lineCount(r.stdout)).toBe(1 + (JOBS[499]?.steps.length ?? 0));
  });
});

describe("isoTimeText", () => {
  it("equals formatIsoTime second by second across days and odd values", () => {
    resetTimeMemo();
    const base = MANY_NOW - 3 * 86400;
    const wrong: number[] = [];
    for (let t = base; t < base + 4 * 86400; t += 7) if (isoTimeText(t) !== formatIsoTime(t)) wrong.push(t);
    expect(wrong).toEqual([]);
    for (const t of [0, 0.5, -1, -86401, 59.9, Number.NaN, Number.POSITIVE_INFINITY, 1e20]) {
      expect(isoTimeText(t, "N/A")).toBe(formatIsoTime(t, "N/A"));
    }
  });
});
