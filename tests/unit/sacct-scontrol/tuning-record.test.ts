/**
 * --cpu-freq, --gpu-freq, --network and --spread-job in scontrol show job, line by line as the
 * Slurm 22.05 oracle printed them (multi-line form: where each sits and its trailing spaces).
 */
import { describe, expect, it } from "vitest";
import { formatJobRecord } from "../../../src/compat/format/scontrol-show-job.ts";
import type { JobSpecP } from "../../../src/sched/model/types.ts";
import { cluster, spec, submit } from "../sched/builders.ts";

function lines(over: Partial<JobSpecP>): string[] {
  const c = cluster();
  c.run(submit(spec({ name: "t", hold: true, stdOut: "/dev/null", ...over })));
  const info = c.state.jobs.get(1)?.info;
  if (info === undefined) throw new Error("not submitted");
  return formatJobRecord(info, { now: 100, oneLiner: false, detail: false }).split("\n").map((l) => l.replace(/^ {3}/, ""));
}

/** The lines between StdOut= and Power= (exclusive). */
const beforePower = (l: string[]) => l.slice(l.findIndex((x) => x.startsWith("StdOut=")) + 1, l.indexOf("Power="));
const afterPower = (l: string[]) => l.slice(l.indexOf("Power=") + 1).filter((x) => x !== "");

describe("--cpu-freq (a line before Power=)", () => {
  it.each([
    ["High", "CPU_max_freq=High "],
    ["2400000", "CPU_max_freq=2400000 "],
    ["Low-High", "CPU_min_freq=Low CPU_max_freq=High "],
    ["Medium-Highm1", "CPU_min_freq=Medium CPU_max_freq=Highm1 "],
    ["Low-High:Performance", "CPU_min_freq=Low CPU_max_freq=High Governor=Performance"],
    ["1000-2000:UserSpace", "CPU_min_freq=1000 CPU_max_freq=2000 Governor=UserSpace"],
    ["Performance", "Governor=Performance"],
    ["OnDemand", "Governor=OnDemand"],
  ])("%s", (cpuFreq, line) => {
    expect(beforePower(lines({ cpuFreq }))).toEqual([line]);
  });

  it("none without it", () => {
    expect(beforePower(lines({}))).toEqual([]);
  });
});

describe("after Power=", () => {
  it("SpreadJob=Yes joins the flag line; TresFreq= sits between TresBind= and TresPerJob=", () => {
    expect(afterPower(lines({ spreadJob: true }))).toEqual(["SpreadJob=Yes"]);
    const all = afterPower(lines({ spreadJob: true, killOnInvalidDep: true, gresFlags: "enforce-binding", tresFreq: "gpu:high", gpuBind: "closest", gpus: "1" }));
    expect(all.slice(0, 3)).toEqual(["GresEnforceBind=YesKillOInInvalidDependent=YesSpreadJob=Yes", "TresBind=gpu:closest", "TresFreq=gpu:high"]);
    expect(all[3]).toMatch(/^TresPerJob=/);
  });
});

describe("--network", () => {
  it("Network= as given, (null) without it", () => {
    expect(lines({ network: "sn_all" })).toContain("OverSubscribe=OK Contiguous=0 Licenses=(null) Network=sn_all");
    expect(lines({ network: "" })).toContain("OverSubscribe=OK Contiguous=0 Licenses=(null) Network=");
    expect(lines({})).toContain("OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)");
  });
});

describe("--spread-job's node range while pending (oracle 22.05 on 4 nodes of 4 CPUs, held)", () => {
  const CONF4 = `ClusterName=t
DefMemPerCPU=256
NodeName=n[1-4] CPUs=4 RealMemory=4000
PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE
`;
  it.each([
    [{ ntasks: 3 }, "NumNodes=1-3 "],
    [{ ntasks: 8 }, "NumNodes=2-4 "],
    [{ ntasks: 2, cpusPerTask: 2 }, "NumNodes=1-2 "],
    [{ ntasks: 3, nodesMin: 1, nodesMax: 2 }, "NumNodes=1-2 "],
    [{}, "NumNodes=1 "], // differential seed 27: one task, no range
  ])("%j", (over, text) => {
    const c = cluster(CONF4);
    c.run(submit(spec({ name: "s", hold: true, spreadJob: true, ...over })));
    const info = c.state.jobs.get(1)?.info;
    if (info === undefined) throw new Error("not submitted");
    expect(formatJobRecord(info, { now: 100, oneLiner: true, detail: false })).toContain(` ${text}`);
  });
});

describe("--delay-boot (oracle: DelayBoot=00:05:00 for 5, 01:30:00 for 90, 1-00:00:00 for 1-0)", () => {
  it.each([[300, "DelayBoot=00:05:00"], [5400, "DelayBoot=01:30:00"], [86400, "DelayBoot=1-00:00:00"], [undefined, "DelayBoot=00:00:00"]])("%s s", (delayBootSec, text) => {
    expect(lines(delayBootSec === undefined ? {} : { delayBootSec })).toContain(`Features=(null) ${text}`);
  });
});
