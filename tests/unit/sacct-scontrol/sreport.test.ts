/**
 * sreport (issue 20): the report window (rounded to hours, as the oracle shows it), CPU-seconds
 * allocated/planned/idle from job records, the units of -t, the column widths, and the header
 * layout of `cluster utilization` and `user topusage` as captured from the oracle (22.05).
 */
import { describe, expect, it } from "vitest";
import {
  clusterUsage,
  parseTimeFormat,
  reportWindow,
  usageText,
  usageWidth,
  userTopText,
  userUsage,
  type Style,
} from "../../../src/compat/format/sreport.ts";
import { sreportMain } from "../../../src/cli/sreport.ts";
import { clusterUtilizationText } from "../../../src/compat/format/sreport-utilization.ts";
import { isoTimeText } from "../../../src/compat/format/time-memo.ts";
import { at, fakePort, makeJob, makeNode } from "./helpers.ts";

const NOW = at("15:22:10");
const HOUR = 3600;
const W = { start: at("10:00:00"), end: at("12:00:00") };
const time = (t: number) => isoTimeText(t);
const style = (p: Partial<Style> = {}): Style => ({ parsable: "none", header: true, format: "mins", ...p });

const jobs = [
  // 2 CPUs for the 30 minutes from 10:30, inside the window
  makeJob({ jobId: 1, user: "alice", account: "phys", numCpus: 2, eligibleTime: at("10:30:00"), startTime: at("10:30:00"), endTime: at("11:00:00") }),
  // 1 CPU from before the window, still running: counted from 10:00 to 12:00
  makeJob({ jobId: 2, user: "bob", account: "chem", numCpus: 1, state: "RUNNING", eligibleTime: at("09:00:00"), startTime: at("09:00:00"), endTime: at("20:00:00") }),
  // waited (eligible) 10:00-11:00 on 1 CPU, then ran 11:00-11:10
  makeJob({ jobId: 3, user: "alice", account: "bio", numCpus: 1, eligibleTime: at("10:00:00"), startTime: at("11:00:00"), endTime: at("11:10:00") }),
  // ended before the window
  makeJob({ jobId: 4, user: "carol", numCpus: 4, eligibleTime: at("08:00:00"), startTime: at("08:00:00"), endTime: at("09:00:00") }),
];

describe("the report window", () => {
  it("rounds start and end to the nearest hour, at least one hour; end never past now", () => {
    expect(reportWindow(at("10:30:00"), at("12:45:00"), NOW)).toEqual({ start: at("11:00:00"), end: at("13:00:00") });
    expect(reportWindow(at("10:30:10"), at("11:00:00"), NOW)).toEqual({ start: at("11:00:00"), end: at("12:00:00") });
    expect(reportWindow(at("10:29:30"), at("10:29:29"), NOW)).toEqual({ start: at("11:00:00"), end: at("12:00:00") });
    expect(reportWindow(at("00:00:00"), at("23:00:00"), NOW)).toEqual({ start: at("00:00:00"), end: at("15:00:00") });
  });

  it("defaults to yesterday", () => {
    expect(reportWindow(undefined, undefined, NOW)).toEqual({ start: at("00:00:00") - 86400, end: at("00:00:00") });
  });
});

describe("usage from job records", () => {
  it("allocated is CPUs x overlap; planned the eligible wait; idle the rest of CPUs x window", () => {
    const u = clusterUsage("oracle", jobs, 4, W, NOW);
    expect(u).toEqual({
      cluster: "oracle", tres: "cpu", allocated: 2 * 1800 + 2 * HOUR + 600, down: 0, plannedDown: 0, planned: HOUR,
      idle: 8 * HOUR - (3600 + 7200 + 600) - HOUR, reported: 8 * HOUR, capacity: 8 * HOUR, count: 4, over: 0,
    });
  });

  it("planned never pushes past the capacity", () => {
    const waiting = makeJob({ jobId: 9, state: "PENDING", numCpus: 16, eligibleTime: at("09:00:00") });
    const u = clusterUsage("oracle", [...jobs, waiting], 4, W, NOW);
    expect(u.allocated + u.planned).toBe(u.reported);
    expect(u.idle).toBe(0);
  });

  it("users by CPU time, largest first, with the accounts they used", () => {
    expect(userUsage(jobs, W, NOW)).toEqual([
      { user: "alice", accounts: ["phys", "bio"], used: 4200 },
      { user: "bob", accounts: ["chem"], used: 7200 },
    ].sort((a, b) => b.used - a.used));
  });
});

describe("units and widths", () => {
  it("-t: seconds, minutes and hours rounded as printf %.0f, percent of a total, the per forms", () => {
    expect(["secs", "mins", "hours", "percent", "secper", "minper", "hourper"].map((f) => usageText(32784, 2327400, f as Style["format"]))).toEqual([
      "32784", "546", "9", "1.41%", "32784(1.41%)", "546(1.41%)", "9(1.41%)",
    ]);
    expect([90, 150, 30].map((s) => usageText(s, 0, "mins"))).toEqual(["2", "2", "0"]);
    expect(usageText(0, 0, "percent")).toBe("0.00%");
    expect(["m", "Hours", "percent", "hourper", "s", "secper", "bogus", "secs", "hourp", "percentage"].map(parseTimeFormat)).toEqual(["mins", "hours", "percent", "hourper", "secs", "secper", undefined, undefined, undefined, undefined]);
  });

  it("columns are 8 wide up to 10^8 units of seconds, one more per digit, 9 more for per formats", () => {
    expect([0, 99_999_999, 100_000_000, 1_000_000_000].map((n) => usageWidth(n, "mins"))).toEqual([8, 8, 9, 10]);
    expect(usageWidth(0, "hourper")).toBe(17);
  });
});

describe("layout (oracle 22.05 headers)", () => {
  const u = { cluster: "oracle", allocated: 457, down: 0, plannedDown: 0, idle: 32135, planned: 192, reported: 32784, capacity: 32784 };
  const window = { start: at("00:00:00") - 3 * 86400, end: at("15:00:00") };

  it("cluster utilization: banner, cut headers, right-justified values", () => {
    expect(clusterUtilizationText([u], window, style(), time).text).toBe(
      [
        "-".repeat(80),
        "Cluster Utilization 2026-11-29T00:00:00 - 2026-12-02T14:59:59",
        "Usage reported in CPU Minutes",
        "-".repeat(80),
        "  Cluster Allocate     Down PLND Dow     Idle  Planned Reported ",
        "--------- -------- -------- -------- -------- -------- -------- ",
        "   oracle        8        0        0      536        3      546 ",
        "",
      ].join("\n"),
    );
  });

  it("-P and -p: '|' between fields, -p with one at the end; -n: no banner and no header", () => {
    const plain = clusterUtilizationText([u], window, style({ parsable: "plain", format: "percent" }), time).text.split("\n");
    expect(plain.slice(2)).toEqual(["Usage reported in Percentage of Total", "-".repeat(80), "Cluster|Allocated|Down|PLND Down|Idle|Planned|Reported", "oracle|1.39%|0.00%|0.00%|98.02%|0.59%|100.00%", ""]);
    const trailing = clusterUtilizationText([u], window, style({ parsable: "trailing", header: false }), time).text;
    expect(trailing).toBe("oracle|8|0|0|536|3|546|\n");
  });

  it("user topusage: Top N Users with the window in seconds, Login/Proper Name/Account/Used/Energy", () => {
    const text = userTopText(u, [{ user: "root", accounts: ["root"], used: 457 }], 10, window, style(), () => "root", time).text;
    expect(text.split("\n")).toEqual([
      "-".repeat(80),
      "Top 10 Users 2026-11-29T00:00:00 - 2026-12-02T14:59:59 (313200 secs)",
      "Usage reported in CPU Minutes",
      "-".repeat(80),
      "  Cluster     Login     Proper Name         Account     Used   Energy ",
      "--------- --------- --------------- --------------- -------- -------- ",
      "   oracle      root            root            root        8        0 ",
      "",
    ]);
    const per = userTopText(u, [{ user: "root", accounts: ["root"], used: 457 }], 10, window, style({ parsable: "trailing", format: "minper" }), () => "root", time).text;
    expect(per.split("\n").slice(4)).toEqual(["Cluster|Login|Proper Name|Account|Used|Energy|", "oracle|root|root|root|8(1.39%)|0(0.00%)|", ""]);
  });
});

describe("the sreport command", () => {
  const world = { jobs, nodes: [makeNode({ name: "n1", cpus: 4 })], now: at("12:10:00") };

  it("reads jobs and nodes; start=/end= by prefix, -t anywhere", async () => {
    const { port, calls } = fakePort(world);
    const r = await sreportMain(["cluster", "utilization", "st=2026-12-02T10:00", "e=2026-12-02T12:00", "-t", "sec", "-P"], port);
    expect(calls.listJobs).toEqual([{ includeFinished: true, windowStart: W.start, windowEnd: W.end }]);
    expect([r.exitCode, r.stderr]).toEqual([0, ""]);
    expect(r.stdout.split("\n").slice(1, 3)).toEqual(["Cluster Utilization 2026-12-02T10:00:00 - 2026-12-02T11:59:59", "Usage reported in CPU Seconds"]);
    expect(r.stdout.split("\n")[5]).toBe(`oracle|11400|0|0|13800|3600|${8 * HOUR}`);
  });

  it("user topusage with TopCount", async () => {
    const r = await sreportMain(["-p", "user", "top", "start=2026-12-02T10:00", "end=2026-12-02T12:00", "topcount=1"], fakePort(world).port);
    expect(r.stdout.split("\n").slice(1)).toEqual([
      "Top 1 Users 2026-12-02T10:00:00 - 2026-12-02T11:59:59 (7200 secs)", "Usage reported in CPU Minutes", "-".repeat(80),
      "Cluster|Login|Proper Name|Account|Used|Energy|", "oracle|bob||chem|120|0|", "",
    ]);
  });

  it("Users= (or a bare word) and Accounts= select users, a line per user and account; another cluster (Clusters=, -M) has no rows", async () => {
    const { port } = fakePort(world);
    const rows = async (argv: string[]) => (await sreportMain(["-P", ...argv, "start=2026-12-02T10:00", "end=2026-12-02T12:00"], port)).stdout.split("\n").slice(5, -1);
    // one line per user and account (oracle 22.05); Group merges a user's accounts
    expect(await rows(["user", "top", "users=alice"])).toEqual(["oracle|alice||phys|60|0", "oracle|alice||bio|10|0"]);
    expect(await rows(["user", "top", "alice", "group"])).toEqual(["oracle|alice||phys, bio|70|0"]);
    expect(await rows(["user", "top", "acc=bio,chem"])).toEqual(["oracle|bob||chem|120|0", "oracle|alice||bio|10|0"]);
    expect(await rows(["cluster", "utilization", "clusters=other"])).toEqual([]);
    expect(await rows(["-M", "other", "user", "top"])).toEqual([]);
    expect(await rows(["-M", "oracle", "cluster", "utilization"])).toEqual(["oracle|190|0|0|230|60|480"]);
  });

  it("errors in sreport's words", async () => {
    const { port } = fakePort(world);
    expect(await sreportMain(["cluster"], port)).toEqual({ stdout: "", stderr: "too few arguments for keyword:cluster\n", exitCode: 1 });
    // oracle: `sreport r` and `sreport c ut` (cluster needs two letters)
    expect(await sreportMain(["c", "ut"], port)).toEqual({ stdout: "", stderr: "invalid keyword: c\n", exitCode: 1 });
    const bad = await sreportMain(["cluster", "foo"], port);
    expect([bad.exitCode, bad.stderr.split("\n")[0]]).toEqual([1, "Not valid report foo"]);
    expect((await sreportMain(["user", "foo"], port)).stderr).toBe('Not valid report foo\nValid user reports are, "Top"\n');
    const cond = await sreportMain(["cluster", "utilization", "foo=1"], port);
    expect([cond.exitCode, cond.stderr]).toEqual([1, " Unknown condition: foo=1\nUse keyword set to modify value\n"]);
    expect(cond.stdout).toContain("Cluster Utilization");
    expect((await sreportMain(["-t", "bogus", "cluster", "utilization"], port)).stderr).toBe("unknown time format bogus");
  });
});
