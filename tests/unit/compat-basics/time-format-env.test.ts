/**
 * SLURM_TIME_FORMAT through the one time formatter every command uses. Expected values
 * come from the oracle (Slurm 22.05, recorded 2026-12-03 in UTC: a job submitted at
 * 20:31:55 shows `1796329915` with `%s`, `20:31` with `%H:%M`, `20:31:55` with `relative`
 * the same day, `2026-12-03 20:31:55` with `%Y-%m-%d %H:%M:%S`, ISO with `standard` or
 * empty; `abc` prints "<cmd>: error: invalid SLURM_TIME_FORMAT = 'abc'" once a time is
 * printed, then ISO) and from shared/slurm-surface/time-formats.md (relative forms).
 * Also sacct --units (oracle: 256M → 262144K, 0.25G, 0.00T; X refused).
 */
import { afterEach, describe, expect, it } from "vitest";
import { formatIsoTime, timeFormatError, useTimeFormat } from "../../../src/compat/format-time.ts";
import { strftime } from "../../../src/compat/strftime.ts";
import { scontrolMain } from "../../../src/cli/scontrol.ts";
import { squeueMain } from "../../../src/cli/squeue.ts";
import { sacctMain } from "../../../src/cli/sacct.ts";
import { fakePort, makeJob } from "../sacct-scontrol/helpers.ts";

process.env.TZ = "UTC";

const SUBMIT = 1796329915; // 2026-12-03T20:31:55Z (a Thursday)
const DAY = 86400;

afterEach(() => useTimeFormat(undefined, 0));

describe("SLURM_TIME_FORMAT", () => {
  it.each([
    [undefined, "2026-12-03T20:31:55"], ["", "2026-12-03T20:31:55"], ["standard", "2026-12-03T20:31:55"],
    ["%s", "1796329915"], ["%H:%M", "20:31"], ["%Y-%m-%d %H:%M:%S", "2026-12-03 20:31:55"], ["%a %d %b", "Thu 03 Dec"],
    ["relative", "20:31:55"],
  ])("%j → %j (oracle)", (value, text) => {
    useTimeFormat(value, SUBMIT + 60);
    expect(formatIsoTime(SUBMIT)).toBe(text);
    expect(formatIsoTime(0)).toBe("Unknown");
  });

  it("relative: by day distance from today", () => {
    useTimeFormat("relative", SUBMIT);
    expect(formatIsoTime(SUBMIT - DAY)).toBe("Ystday 20:31");
    expect(formatIsoTime(SUBMIT + DAY)).toBe("Tomorr 20:31");
    expect(formatIsoTime(SUBMIT + 3 * DAY)).toBe("Sun 20:31");
    expect(formatIsoTime(SUBMIT - 3 * DAY)).toBe("30 Nov 20:31");
    expect(formatIsoTime(SUBMIT + 400 * DAY)).toBe("7 Jan 2028");
  });

  it("an invalid value is reported once, only when a time was printed, and ISO is used", () => {
    useTimeFormat("abc", SUBMIT);
    expect(timeFormatError("squeue")).toBe("");
    expect(formatIsoTime(SUBMIT)).toBe("2026-12-03T20:31:55");
    expect(timeFormatError("squeue")).toBe("squeue: error: invalid SLURM_TIME_FORMAT = 'abc'\n");
    expect(timeFormatError("squeue")).toBe("");
    useTimeFormat("%".repeat(32), SUBMIT);
    formatIsoTime(SUBMIT);
    expect(timeFormatError("x")).toContain("invalid SLURM_TIME_FORMAT");
  });

  it("strftime conversions", () => {
    expect(strftime("%F %T|%D|%R|%j|%e|%-d|%I%p|%y|%u%w|%%|%Q", SUBMIT)).toBe("2026-12-03 20:31:55|12/03/26|20:31|337| 3|3|08PM|26|44|%|%Q");
  });
});

describe("every command that prints times follows it", () => {
  const world = (env: Record<string, string>) => fakePort({ now: SUBMIT + 60, env, jobs: [makeJob({ jobId: 7, state: "PENDING", submitTime: SUBMIT, eligibleTime: SUBMIT })] }).port;

  it("squeue %V", async () => {
    expect((await squeueMain(["-h", "-o", "%V"], world({ SLURM_TIME_FORMAT: "%s" }))).stdout).toBe("1796329915\n");
    const bad = await squeueMain(["-h", "-o", "%V"], world({ SLURM_TIME_FORMAT: "abc" }));
    expect([bad.stdout, bad.stderr]).toEqual(["2026-12-03T20:31:55\n", "squeue: error: invalid SLURM_TIME_FORMAT = 'abc'\n"]);
    // no time printed: no error (oracle: squeue -o %i)
    expect((await squeueMain(["-h", "-o", "%i"], world({ SLURM_TIME_FORMAT: "abc" }))).stderr).toBe("");
  });

  it("scontrol show job SubmitTime=", async () => {
    const r = await scontrolMain(["show", "job", "7"], world({ SLURM_TIME_FORMAT: "relative" }));
    expect(r.stdout).toContain("SubmitTime=20:31:55 ");
  });

  it("sacct Submit", async () => {
    const r = await sacctMain(["-X", "-n", "-P", "-o", "submit", "-j", "7"], world({ SLURM_TIME_FORMAT: "%s" }));
    expect(r.stdout).toBe("1796329915\n");
  });
});

describe("sacct --units (oracle, Slurm 22.05)", () => {
  const port = () =>
    fakePort({
      now: SUBMIT + 60,
      jobs: [makeJob({ jobId: 9, state: "COMPLETED", submitTime: SUBMIT, startTime: SUBMIT, endTime: SUBMIT + 5, tresReq: "cpu=1,mem=256M,node=1,billing=1", tresAlloc: "cpu=1,mem=256M,node=1,billing=1" })],
    }).port;

  it.each([
    ["K", "262144K|billing=1,cpu=1,mem=262144K,node=1"],
    ["m", "256M|billing=1,cpu=1,mem=256M,node=1"],
    ["G", "0.25G|billing=1,cpu=1,mem=0.25G,node=1"],
    ["T", "0.00T|billing=1,cpu=1,mem=0.00T,node=1"],
  ])("--units=%s", async (unit, line) => {
    const r = await sacctMain(["-X", "-n", "-P", "-j", "9", `--units=${unit}`, "-o", "reqmem,alloctres"], port());
    expect(r.stdout).toBe(`${line}\n`);
  });

  it("an unknown unit is refused", async () => {
    const r = await sacctMain(["-j", "9", "--units=X"], port());
    expect([r.stderr, r.exitCode]).toEqual(["sacct: error: Invalid unit type 'X'. Possible options are 'KMGTP'\nsacct: fatal: Invalid unit type\n", 1]);
  });
});
