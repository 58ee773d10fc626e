/**
 * sreport's job sizes and reservation reports against the oracle (22.05): the srp20 workload's
 * job records (sreport-fixture.ts) go through the pure layouts and must print what the oracle
 * printed for the same window (tests/fixtures/sreport/*.txt, recorded with the command named in
 * each case).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jobSizesText, type SizesOptions } from "../../../src/compat/format/sreport-sizes.ts";
import { resvUtilizationText } from "../../../src/compat/format/sreport-resv.ts";
import { parseTimeFormat, type Style } from "../../../src/compat/format/sreport.ts";
import { isoTimeText } from "../../../src/compat/format/time-memo.ts";
import { SRP20_JOBS, SRP20_NOW, SRP20_RESVS, SRP20_TREE, SRP20_WINDOW } from "./sreport-fixture.ts";
import { sreportMain } from "../../../src/cli/sreport.ts";
import { fakePort, makeNode } from "./helpers.ts";

const fixture = (name: string): string => readFileSync(join(__dirname, "../../fixtures/sreport", name), "utf8");
const time = (t: number): string => isoTimeText(t);
const style = (format: string, parsable: Style["parsable"] = "none", header = true): Style => ({
  parsable, header, format: parseTimeFormat(format) ?? "mins",
});
const parents = new Map(SRP20_TREE.filter((a) => a.user === "").map((a) => [a.account, a.parent]));
const sizes = (over: Partial<SizesOptions>, s: Style, jobs = SRP20_JOBS): string =>
  jobSizesText("oracle", jobs, SRP20_WINDOW, SRP20_NOW, {
    grouping: [50, 250, 500, 1000], flat: false, printJobCount: false, accounts: ["srpa", "srpb"], withWckey: false,
    byWckey: false, tres: "cpu", tresGiven: false, ...over,
  }, s, (a) => parents.get(a), time).text;

describe("job SizesByAccount (W = start=2026-12-04T17:00:00 end=2026-12-04T18:00:00)", () => {
  it("sreport job SizesByAccount W accounts=srpa,srpb", () => {
    expect(sizes({}, style("mins"))).toBe(fixture("sizes-default.txt"));
  });

  it("-t sec grouping=2,4,8: CPU-seconds of whole jobs by CPU count", () => {
    expect(sizes({ grouping: [2, 4, 8] }, style("sec"))).toBe(fixture("sizes-accounts-grouping.txt"));
  });

  it("-P --tres=gres/gpu grouping=2,3: GPU-seconds, still put in columns by CPU count", () => {
    expect(sizes({ grouping: [2, 3], tres: "gres/gpu", tresGiven: true }, style("sec", "plain"))).toBe(fixture("sizes-gpu-P.txt"));
  });

  it("FlatView printjobcount, grouping=individual -t minper, -p -t percent", () => {
    expect(sizes({ grouping: [2, 4, 8], flat: true, printJobCount: true }, style("sec"))).toBe(fixture("sizes-flat-count.txt"));
    expect(sizes({ grouping: "individual", flat: true }, style("minper"))).toBe(fixture("sizes-individual-minper.txt"));
    expect(sizes({ grouping: [4], flat: true }, style("percent", "trailing"))).toBe(fixture("sizes-percent-p.txt"));
  });

  it("users=spurtest -t hours; SizesByAccountAndWckey FlatView -n (a job without a wckey is 'account:')", () => {
    const spurtest = SRP20_JOBS.filter((j) => j.user === "spurtest");
    expect(sizes({ flat: true }, style("hours"), spurtest)).toBe(fixture("sizes-users-hours.txt"));
    expect(sizes({ flat: true, withWckey: true, grouping: [2] }, style("sec", "none", false))).toBe(fixture("sizes-wckey-flat-n.txt"));
  });
});

describe("reservation utilization", () => {
  const resv = (s: Style, names: string[] = [], tres = ["cpu"]): string =>
    resvUtilizationText("oracle", SRP20_RESVS, SRP20_JOBS, SRP20_WINDOW, SRP20_NOW, { names, tres }, s, time).text;

  it("whole reservation time x its CPUs; its jobs' CPU-seconds inside it as Allocated", () => {
    expect(resv(style("sec", "plain"))).toBe(fixture("resv-P-sec.txt"));
    expect(resv(style("mins"))).toBe(fixture("resv-default.txt"));
    expect(resv(style("percent"))).toBe(fixture("resv-percent.txt"));
  });

  it("names= selects, -t minper widens the columns; --tres=gres/gpu lists none", () => {
    expect(resv(style("minper"), ["srp20-resv2"])).toBe(fixture("resv-minper-names.txt"));
    expect(resv(style("sec", "plain"), [], ["gres/gpu"])).toBe(fixture("resv-tres-gpu.txt"));
  });
});

describe("the sreport command (reports fetched through the controller port)", () => {
  const W = ["start=2026-12-04T17:00:00", "end=2026-12-04T18:00:00"];
  const portFor = () => {
    const { port } = fakePort({ jobs: SRP20_JOBS, nodes: [1, 2, 3, 4].map((i) => makeNode({ name: `n${i}`, cpus: 4 })), now: SRP20_NOW });
    port.ctl.acctList = async () => ({
      cluster: "oracle",
      rows: SRP20_TREE.map((a) => ({ fields: { account: a.account, user: a.user, parentname: a.user === "" ? a.parent : "" } })),
    });
    port.ctl.listReservations = async () => ({ reservations: SRP20_RESVS, now: SRP20_NOW });
    return port;
  };

  it("job SizesByAccount and reservation utilization print the oracle's text", async () => {
    const sizesRun = await sreportMain(["job", "SizesByAccount", ...W, "-t", "sec", "accounts=srpa,srpb", "grouping=2,4,8"], portFor());
    expect([sizesRun.stdout, sizesRun.stderr, sizesRun.exitCode]).toEqual([fixture("sizes-accounts-grouping.txt"), "", 0]);
    const resvRun = await sreportMain(["-P", "reservation", "utilization", ...W, "-t", "sec"], portFor());
    expect(resvRun.stdout).toBe(fixture("resv-P-sec.txt"));
  });

  it("job reports take one TRES only; reports answer unknown words as sreport does", async () => {
    const two = await sreportMain(["--tres=cpu,mem", "job", "SizesByAccount", ...W], portFor());
    expect(two).toEqual({ stdout: "", stderr: " Job report only supports a single --tres type.\n Generate a separate report for each TRES type.\n", exitCode: 1 });
    expect((await sreportMain(["job", "foo"], portFor())).stderr).toBe('Not valid report foo\nValid job reports are, "SizesByAccount, SizesByAccountAndWcKey, and  SizesByWckey"\n');
    expect((await sreportMain(["reservation", "foo"], portFor())).stderr).toBe('Not valid report foo\nValid reservation reports are, "Utilization"\n');
    expect(await sreportMain(["job"], portFor())).toEqual({ stdout: "", stderr: "too few arguments for keyword:job\n", exitCode: 1 });
  });
});
