import { describe, expect, it } from "vitest";
import {
  formatCpuTime,
  formatCtime,
  formatDuration,
  formatElapsed,
  formatIsoTime,
  formatSecs,
  formatTimeLimit,
  formatTimeLimitScontrol,
  formatTimeLimitSinfo,
} from "../../../src/compat/format-time.ts";
import { goldenLines, goldenStdout, haveGoldens, keyValues } from "./golden.ts";

/** Epoch seconds of a local wall-clock time (month 1-12), so tests are TZ-independent. */
const local = (y: number, mo: number, d: number, h: number, mi: number, s: number): number =>
  new Date(y, mo - 1, d, h, mi, s).getTime() / 1000;

describe("formatDuration / formatSecs (squeue %M %L, sinfo)", () => {
  it.each([
    [0, "0:00"], [5, "0:05"], [59, "0:59"], [60, "1:00"], [65, "1:05"], [307, "5:07"],
    [3599, "59:59"], [3600, "1:00:00"], [3723, "1:02:03"], [86399, "23:59:59"],
    [86400, "1-00:00:00"], [90061, "1-01:01:01"], [93784, "1-02:03:04"], [10 * 86400, "10-00:00:00"],
    [5.9, "0:05"],
  ])("%d s → %s", (sec, text) => {
    expect(formatDuration(sec)).toBe(text);
    expect(formatSecs(sec)).toBe(text);
  });

  it("squeue prints INVALID for negative or over-a-year values", () => {
    expect(formatDuration(-1)).toBe("INVALID");
    expect(formatDuration(365 * 86400)).toBe("365-00:00:00");
    expect(formatDuration(365 * 86400 + 1)).toBe("INVALID");
    expect(formatDuration(Number.NaN)).toBe("INVALID");
    expect(formatSecs(-5)).toBe("0:00");
    expect(formatSecs(400 * 86400)).toBe("400-00:00:00");
  });
});

describe("time limits", () => {
  it.each([
    [undefined, "UNLIMITED", "infinite", "UNLIMITED"],
    [0, "0:00", "0:00", "00:00:00"],
    [1, "1:00", "1:00", "00:01:00"],
    [10, "10:00", "10:00", "00:10:00"],
    [61, "1:01:00", "1:01:00", "01:01:00"],
    [60, "1:00:00", "1:00:00", "01:00:00"],
    [1440, "1-00:00:00", "1-00:00:00", "1-00:00:00"],
    [3600, "2-12:00:00", "2-12:00:00", "2-12:00:00"],
  ])("%s min", (min, squeue, sinfo, scontrol) => {
    expect(formatTimeLimit(min)).toBe(squeue);
    expect(formatTimeLimitSinfo(min)).toBe(sinfo);
    expect(formatTimeLimitScontrol(min)).toBe(scontrol);
  });

  it("sbatch --time=99999999 is INVALID in squeue but printable elsewhere", () => {
    expect(formatTimeLimit(99999999)).toBe("INVALID");
    expect(formatTimeLimitScontrol(99999999)).toBe("69444-10:39:00");
  });
});

describe("formatElapsed (sacct Elapsed, scontrol RunTime)", () => {
  it.each([
    [0, "00:00:00"], [1, "00:00:01"], [61, "00:01:01"], [3600, "01:00:00"], [86399, "23:59:59"],
    [86400, "1-00:00:00"], [90061, "1-01:01:01"], [-3, "00:00:00"], [1.7, "00:00:01"],
  ])("%d → %s", (sec, text) => {
    expect(formatElapsed(sec)).toBe(text);
  });
});

describe("formatCpuTime (sacct TotalCPU)", () => {
  it.each([
    [1.5, "00:01.500"], [75, "00:01:15"], [0, "00:00:00"], [0.001, "00:00.001"], [59.25, "00:59.250"],
    [3600.5, "01:00:00"], [90061, "1-01:01:01"],
  ])("%d → %s", (sec, text) => {
    expect(formatCpuTime(sec)).toBe(text);
  });
});

describe("formatIsoTime / formatCtime", () => {
  it("prints local ISO time; 0 → zeroAs", () => {
    expect(formatIsoTime(local(2026, 12, 2, 12, 36, 11))).toBe("2026-12-02T12:36:11");
    expect(formatIsoTime(local(2030, 1, 2, 3, 4, 5))).toBe("2030-01-02T03:04:05");
    expect(formatIsoTime(local(2026, 12, 2, 12, 36, 11) + 0.9)).toBe("2026-12-02T12:36:11");
    expect(formatIsoTime(0)).toBe("Unknown");
    expect(formatIsoTime(0, "N/A")).toBe("N/A");
    expect(formatIsoTime(0, "None")).toBe("None");
    expect(formatIsoTime(Number.POSITIVE_INFINITY)).toBe("Unknown");
  });

  it("prints the -l header line", () => {
    expect(formatCtime(local(2026, 12, 2, 12, 36, 6))).toBe("Wed Dec 02 12:36:06 2026");
    expect(formatCtime(local(2027, 1, 31, 0, 0, 0))).toBe("Sun Jan 31 00:00:00 2027");
  });
});

describe.skipIf(!haveGoldens)("goldens", () => {
  it("squeue -l header line and TIME/TIME_LIMIT columns (047)", () => {
    const lines = goldenLines("047");
    expect(lines[0]).toBe(formatCtime(local(2026, 12, 2, 12, 36, 6)));
    const rows = lines.slice(2).map((l) => l.trim().split(/\s+/));
    expect(rows.map((r) => r[5])).toEqual([0, 0, 0, 0, 6, 6, 6, 3].map(formatDuration));
    expect(rows.map((r) => r[6])).toEqual([...Array(4).fill(undefined), 10, 10, 10, 10].map(formatTimeLimit));
  });

  it("sinfo -N -l / sinfo header lines (004, 057) and TIMELIMIT (003)", () => {
    expect(goldenLines("004")[0]).toBe(formatCtime(local(2026, 12, 2, 12, 35, 28)));
    expect(goldenLines("057")[0]).toBe(formatCtime(local(2026, 12, 2, 12, 36, 7)));
    for (const l of goldenLines("003").slice(1)) expect(l.split(/\s+/)[2]).toBe(formatTimeLimitSinfo(undefined));
  });

  it("squeue TIME column (044) and -o fields (053)", () => {
    const rows = goldenLines("044").slice(1).map((l) => l.trim().split(/\s+/));
    expect(rows.map((r) => r[5])).toEqual([0, 0, 0, 0, 5, 5, 5, 2].map(formatDuration));
    const running = goldenLines("053")[5]?.split("|") ?? [];
    expect(running.slice(13, 17)).toEqual([
      formatTimeLimit(10), formatDuration(593), formatDuration(7), formatIsoTime(local(2026, 12, 2, 12, 36, 0)),
    ]);
    const pending = goldenLines("053")[1]?.split("|") ?? [];
    expect(pending.slice(13, 17)).toEqual([formatTimeLimit(undefined), "UNLIMITED", formatDuration(0), formatIsoTime(0, "N/A")]);
  });

  it("scontrol show job times (065 running, 118 completed)", () => {
    const running = keyValues(goldenStdout("065"));
    expect(running.get("RunTime")).toEqual([formatElapsed(5)]);
    expect(running.get("TimeLimit")).toEqual([formatTimeLimitScontrol(10)]);
    expect(running.get("DelayBoot")).toEqual([formatElapsed(0)]);
    expect(running.get("StartTime")).toEqual([formatIsoTime(local(2026, 12, 2, 12, 36, 3))]);
    expect(running.get("EndTime")).toEqual([formatIsoTime(local(2026, 12, 2, 12, 46, 3))]);
    const done = keyValues(goldenStdout("118"));
    expect(done.get("RunTime")).toEqual([formatElapsed(1)]);
    expect(done.get("TimeLimit")).toEqual([formatTimeLimitScontrol(undefined)]);
    expect(done.get("SubmitTime")).toEqual([formatIsoTime(local(2026, 12, 2, 12, 36, 11))]);
    expect(done.get("SuspendTime")).toEqual([formatIsoTime(0, "None")]);
  });

  it("squeue --start START_TIME (052)", () => {
    const rows = goldenLines("052").slice(1).map((l) => l.trim().split(/\s+/));
    expect(rows[0]?.[5]).toBe(formatIsoTime(local(2026, 12, 2, 13, 36, 3), "N/A"));
    expect(rows[1]?.[5]).toBe(formatIsoTime(0, "N/A"));
  });
});
