import { describe, expect, it } from "vitest";
import { parseBeginTime, parseDurationSec, parseTimeLimit } from "../../../src/compat/parse-time.ts";
import { parseSizeMiB } from "../../../src/compat/parse-size.ts";
import { parseSacctTime } from "../../../src/compat/format/sacct-time.ts";

describe("parseTimeLimit (examples from time-formats.md, all [verified] there)", () => {
  it.each([
    ["90", 90], ["5:30", 6], ["0:30", 1], ["1:00:00", 60], ["1:00:01", 61], ["2-3", 3060], ["2-3:04", 3064],
    ["2-3:04:05", 3065], ["1-", 1440], ["0:90", 2], ["99999999", 99999999], ["10:00", 10], ["00:10:00", 10],
    ["unlimited", undefined], ["UNLIMITED", undefined], ["Infinite", undefined], ["-1", undefined], ["0", undefined],
  ] as const)("%s → %s minutes", (text, minutes) => {
    expect(parseTimeLimit(text)).toEqual({ ok: true, value: minutes });
  });

  it.each(["abc", "1.5", " 5", "5 ", "3h", "1-2-3", "1:2:3:4", "1:2-3", "-5", "1::2", "", ":", "1-:5", "1-2:3:4:5"])(
    "%j is invalid",
    (text) => {
      expect(parseTimeLimit(text)).toEqual({ ok: false, error: { code: "BadTimeLimit", message: "Invalid --time specification", exitCode: 255 } });
    },
  );

  it("names the option in the message", () => {
    expect(parseTimeLimit("x", "--time-min")).toMatchObject({ ok: false, error: { message: "Invalid --time-min specification" } });
  });

  it("parseDurationSec keeps seconds", () => {
    expect([parseDurationSec("1:05"), parseDurationSec("1-0:0:1"), parseDurationSec("x")]).toEqual([65, 86401, undefined]);
  });
});

describe("parseBeginTime (examples from time-formats.md, now = 2026-12-02 11:20:44 local)", () => {
  const now = new Date(2026, 11, 2, 11, 20, 44).getTime() / 1000;
  const at = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number => new Date(y, mo - 1, d, h, mi, s).getTime() / 1000;
  it.each([
    ["now", at(2026, 12, 2, 11, 20, 44)],
    ["now+1hour", at(2026, 12, 2, 12, 20, 44)],
    ["now+1 hour", at(2026, 12, 2, 12, 20, 44)],
    ["now+1hours", at(2026, 12, 2, 12, 20, 44)],
    ["NOW+2Days", at(2026, 12, 4, 11, 20, 44)],
    ["now+60", at(2026, 12, 2, 11, 21, 44)],
    ["now-10minutes", at(2026, 12, 2, 11, 10, 44)],
    ["now+1week", at(2026, 12, 9, 11, 20, 44)],
    ["today", at(2026, 12, 2)],
    ["tomorrow", at(2026, 12, 3)],
    ["midnight", at(2026, 12, 3)],
    ["noon", at(2026, 12, 2, 12)],
    ["elevenses", at(2026, 12, 3, 11)],
    ["fika", at(2026, 12, 2, 15)],
    ["teatime", at(2026, 12, 2, 16)],
    ["teatime tomorrow", at(2026, 12, 3, 16)],
    ["16:00", at(2026, 12, 2, 16)],
    ["10:00", at(2026, 12, 3, 10)],
    ["16:00:30", at(2026, 12, 2, 16, 0, 30)],
    ["4:30PM", at(2026, 12, 2, 16, 30)],
    ["4:30 pm", at(2026, 12, 2, 16, 30)],
    ["12:00AM", at(2026, 12, 3, 0)],
    ["2030-01-02T10:20", at(2030, 1, 2, 10, 20)],
    ["2030-01-02T10:20:30", at(2030, 1, 2, 10, 20, 30)],
    ["2026-12-24", at(2026, 12, 24)],
    ["12/25", at(2026, 12, 25)],
    ["01/05", at(2027, 1, 5)],
    ["12/25/30", at(2030, 12, 25)],
    ["12.25.30", at(2030, 12, 25)],
    ["122530", at(2030, 12, 25)],
    ["1225", at(2026, 12, 25)],
    ["12/25-10:00", at(2026, 12, 25, 10)],
    ["uts1900000000", 1900000000],
  ] as const)("%s", (text, expected) => {
    expect(parseBeginTime(text, now)).toEqual({ ok: true, value: expected });
  });

  it.each([
    // positions as the oracle (22.05) reports them (more in parse-time-oracle.test.ts)
    ["now+3h", 4], ["now+1 min", 5], ["4pm", 1], ["0", -1], ["abc", 0], ["13/01", 0], ["25:00", 0], ["uts12", 0],
    ["noon x", 5], ["2030-13-01", 5], ["-5", 2], ["--5", 3], ["-x", 1], ["5-", 1],
  ] as const)("%j is invalid (pos=%d)", (text, pos) => {
    expect(parseBeginTime(text, now)).toEqual({
      ok: false,
      error: { code: "BadTime", message: `Invalid time specification (pos=${pos}): ${text}\nInvalid --begin specification`, exitCode: 255 },
    });
  });

  it("nothing to read is refused by the option's line alone; sacct's start of time; a '-' between pieces is skipped (oracle 22.05)", () => {
    for (const text of ["", " ", "-", "T"]) {
      expect(parseBeginTime(text, now)).toEqual({ ok: false, error: { code: "BadTime", message: "Invalid --begin specification", exitCode: 255 } });
      expect(parseBeginTime(text, now, "--starttime", true)).toEqual({ ok: true, value: 0 });
    }
    expect(parseBeginTime("-5:00", now)).toEqual(parseBeginTime("5:00", now));
  });

  it("--deadline uses the same parser with its own name", () => {
    expect(parseBeginTime("x", now, "--deadline")).toMatchObject({ ok: false, error: { message: expect.stringContaining("Invalid --deadline specification") } });
  });
});

describe("parseSizeMiB", () => {
  it.each([
    ["100", 100], ["0", 0], ["1K", 1], ["1024k", 1], ["1025K", 2], ["2M", 2], ["4G", 4096], ["4g", 4096], ["1T", 1048576], ["999999", 999999],
    // oracle (Slurm 22.05, --hold, scontrol MinMemoryNode): a B after the unit letter is accepted
    ["500MB", 500], ["1GB", 1024], ["5MB", 5], ["1Gb", 1024], ["1gb", 1024], ["1TB", 1048576], ["1024KB", 1], ["1000K", 1], ["500m", 500],
  ] as const)("%s → %d MiB", (text, mib) => {
    expect(parseSizeMiB(text)).toEqual({ ok: true, value: mib });
  });

  it.each(["", "abc", "1.5G", "-1", "G", " 4G", "1P", "500B", "1KBx", "1M5", "GB"])("%j is invalid", (text) => {
    expect(parseSizeMiB(text).ok).toBe(false);
  });

  it("the default unit applies to bare numbers", () => {
    expect([parseSizeMiB("2", "G"), parseSizeMiB("2048", "K")]).toEqual([{ ok: true, value: 2048 }, { ok: true, value: 2 }]);
  });
});

describe("sacct -S at the start of time", () => {
  it("accepts 1970-01-01 (Toil's Slurm batch system asks sacct -S 1970-01-01) as epoch 0", () => {
    const r = parseSacctTime("1970-01-01", 1_800_000_000);
    expect(r.ok && r.value >= 0 && r.value < 86_400).toBe(true); // 0, or local midnight west of UTC
    expect(parseSacctTime("garbage", 1_800_000_000).ok).toBe(false);
  });
});
