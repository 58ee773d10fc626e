/**
 * Pure pieces around cgroups: CPU lists and core choice, gres.conf device
 * files, usage parsing and combining, and sacct's size/CPU texts.
 */
import { describe, expect, it } from "vitest";
import { formatCpuList, hostCpusFor, parseCpuList, pickCpus } from "../../../src/lib/cpu-list.ts";
import { splitDev } from "../../../src/agent/cgroup/gres-files.ts";
import { gresForNode, parseGresConf } from "../../../src/compat/conf/gres-conf.ts";
import { emptySampler, emptyUsage, nodeUsage, parseKeyValues, parseProcStat, parseProcStatus, readCounters, taskExtremes, taskOfProcesses } from "../../../src/agent/cgroup/usage.ts";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatKib, jobCpuValue, stepUsageValue } from "../../../src/compat/format/usage-values.ts";
import { mergeUsage } from "../../../src/sched/model/apply-usage.ts";

describe("cpus", () => {
  it("parses and formats CPU lists", () => {
    expect(parseCpuList("0-2,5,7-8\n")).toEqual([0, 1, 2, 5, 7, 8]);
    expect(parseCpuList("")).toEqual([]);
    expect(formatCpuList([5, 0, 1, 2, 2, 8, 7])).toBe("0-2,5,7-8");
    expect(formatCpuList([])).toBe("");
  });

  it("picks the lowest free configured CPUs and maps them onto the host's", () => {
    expect(pickCpus(2, 4, new Set([0]))).toEqual([1, 2]);
    expect(pickCpus(3, 4, new Set([0, 1]))).toEqual([2, 3]);
    expect(hostCpusFor([2, 3], [0, 1])).toEqual([0, 1]);
    expect(hostCpusFor([1], [4, 5, 6])).toEqual([5]);
    expect(hostCpusFor([0, 2], [0, 1])).toEqual([0]);
  });
});

describe("gres.conf", () => {
  const conf = "# fake GPUs\nNodeName=n[1-2] Name=gpu Type=mi300x File=/tmp/x/fakegpu[0-3]\nNodeName=n3 Name=gpu File=/dev/nvidia0\nName=mps Count=100\n";
  // The device cgroup takes the node's GPU files from the one gres.conf parser the node registers with.
  const files = (node: string): string[] => {
    const parsed = parseGresConf(conf);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const mine = gresForNode(parsed.value, node);
    if (!mine.ok) throw new Error(mine.error.message);
    return mine.value.gpus.map((g) => g.file);
  };
  it("lists this node's GPU files in index order", () => {
    expect(files("n2")).toEqual(["/tmp/x/fakegpu0", "/tmp/x/fakegpu1", "/tmp/x/fakegpu2", "/tmp/x/fakegpu3"]);
    expect(files("n3")).toEqual(["/dev/nvidia0"]);
    expect(files("n9")).toEqual([]);
  });
  it("splits dev_t as glibc does", () => {
    expect(splitDev(259)).toEqual({ major: 1, minor: 3 });
    expect(splitDev((242 << 8) | 5)).toEqual({ major: 242, minor: 5 });
    expect(splitDev((1 << 20) | (511 << 8) | 7)).toEqual({ major: 511, minor: 256 + 7 });
  });
});

describe("usage", () => {
  it("parses cgroup key/value files and /proc status", () => {
    expect(parseKeyValues("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n").get("oom_kill")).toBe(2);
    expect(parseProcStatus("Name:\tperl\nVmSize:\t  421856 kB\nVmRSS:\t  417000 kB\n")).toEqual({ rssKib: 417000, vmKib: 421856 });
  });

  it("takes the higher of the cgroup peak and the samples, and averages samples", () => {
    const s = { ...emptySampler(), samples: 2, rssSumKib: 300, vmSumKib: 1000, maxRssKib: 200, maxVmKib: 600 };
    const u = nodeUsage({ peakKib: 250.4, userCpuSec: 1.5, systemCpuSec: 0.25, oomKills: 0 }, s, "n1", 1);
    expect(u).toMatchObject({ maxRssKib: 250, aveRssKib: 150, maxVmsizeKib: 600, aveVmsizeKib: 500, userCpuSec: 1.5, minCpuSec: 1.75, maxRssNode: "n1" });
    const none = nodeUsage({ peakKib: 100, userCpuSec: 0, systemCpuSec: 0, oomKills: 0 }, emptySampler(), "n1", 1);
    expect(none.aveRssKib).toBe(100);
  });

  it("combines nodes: max of maxima with their node, sums of CPU, least CPU with its node", () => {
    const a = { ...emptyUsage(), maxRssKib: 10, maxRssNode: "n1", userCpuSec: 1, minCpuSec: 1, minCpuNode: "n1", ntasks: 1 };
    const b = { ...emptyUsage(), maxRssKib: 30, maxRssNode: "n2", userCpuSec: 2, minCpuSec: 2, minCpuNode: "n2", ntasks: 2 };
    expect(mergeUsage(a, b)).toMatchObject({ maxRssKib: 30, maxRssNode: "n2", userCpuSec: 3, minCpuSec: 1, minCpuNode: "n1", ntasks: 3 });
    expect(mergeUsage({ ...a, aveRssKib: 10 }, { ...b, aveRssKib: 40 }).aveRssKib).toBe(30); // weighted by tasks: (10*1 + 40*2) / 3
  });
});

describe("readCounters on fake trees", () => {
  it("reads v1 and v2 files (bytes, ns, usec, OOM counters of step and job)", () => {
    const root = mkdtempSync(join(tmpdir(), "counters-"));
    const dir = (p: string, files: Record<string, string>) => {
      mkdirSync(join(root, p), { recursive: true });
      for (const [f, v] of Object.entries(files)) writeFileSync(join(root, p, f), v);
      return join(root, p);
    };
    const v1mem = dir("v1/memory/job/step", { "memory.max_usage_in_bytes": "2097152\n", "memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n" });
    const v1job = dir("v1/memory/job", { "memory.oom_control": "oom_kill 1\n" });
    // usage_user + usage_sys (2.2 s) over-count; the exact total (2 s) is split 3:1 by the tick counts.
    const v1cpu = dir("v1/cpuacct/job/step", {
      "cpuacct.usage": "2000000000\n", "cpuacct.usage_user": "1700000000\n", "cpuacct.usage_sys": "500000000\n", "cpuacct.stat": "user 150\nsystem 50\n",
    });
    expect(readCounters({ version: "v1", memoryDir: v1mem, cpuDir: v1cpu, jobMemoryDir: v1job })).toEqual({ peakKib: 2048, userCpuSec: 1.5, systemCpuSec: 0.5, oomKills: 1 });
    const v2step = dir("v2/job/step", { "memory.peak": "1048576\n", "cpu.stat": "usage_usec 3000000\nuser_usec 2000000\nsystem_usec 1000000\n", "memory.events": "oom 1\noom_kill 2\n" });
    const v2job = dir("v2/job", { "memory.events": "oom_kill 0\n" });
    expect(readCounters({ version: "v2", memoryDir: v2step, cpuDir: v2step, jobMemoryDir: v2job })).toEqual({ peakKib: 1024, userCpuSec: 2, systemCpuSec: 1, oomKills: 2 });
  });
});

describe("sacct usage texts", () => {
  it("reduces sizes only while they divide exactly", () => {
    expect(formatKib(0)).toBe("0");
    expect(formatKib(13168)).toBe("13168K");
    expect(formatKib(204800)).toBe("200M");
    expect(formatKib(1024)).toBe("1024K");
    expect(formatKib(2 * 1024 * 1024)).toBe("2G");
  });

  it("prints blank sizes and zero CPU for an unmeasured step, sums CPU on the job line", () => {
    expect(stepUsageValue("MaxRSS", undefined)).toBe("");
    expect(stepUsageValue("TotalCPU", undefined)).toBe("00:00:00");
    const u = { ...emptyUsage(), maxRssKib: 417592, userCpuSec: 1.6, systemCpuSec: 0.32, minCpuSec: 1.92, ntasks: 1 };
    expect(stepUsageValue("MaxRSS", u)).toBe("417592K");
    expect(stepUsageValue("TotalCPU", u)).toBe("00:01.920");
    expect(stepUsageValue("AveCPU", u)).toBe("00:00:02");
    expect(stepUsageValue("JobID", u)).toBeUndefined();
    expect(jobCpuValue("UserCPU", [{ usage: u }, {}, { usage: u }])).toBe("00:03.200");
  });
});

describe("per-task usage", () => {
  it("reads a process group and CPU seconds from /proc/PID/stat (names with spaces and parentheses too)", () => {
    const stat = "4242 (my (odd) name) S 1 4200 4200 0 -1 4194560 100 0 0 0 150 50 30 20 20 0 1 0 100 1000 200";
    expect(parseProcStat(stat)).toEqual({ ppid: 1, pgrp: 4200, cpuSec: 2.5 });
    expect(parseProcStat("garbage")).toBeUndefined();
  });

  it("gives each process the task of its nearest leader ancestor, else of its process group", () => {
    const stats = new Map([[10, { ppid: 1, pgrp: 10 }], [11, { ppid: 10, pgrp: 11 }], [12, { ppid: 11, pgrp: 11 }], [20, { ppid: 1, pgrp: 20 }], [21, { ppid: 1, pgrp: 20 }], [30, { ppid: 1, pgrp: 30 }]]);
    expect([...taskOfProcesses(stats, { "10": 0, "20": 1 })].sort((a, b) => a[0] - b[0])).toEqual([[10, 0], [11, 0], [12, 0], [20, 1], [21, 1]]);
  });

  it("names the task with the most memory and the one with the least CPU; MinCPU only when every task was sampled", () => {
    const s = { ...emptySampler(), perTask: { "0": { rssKib: 10, vmKib: 50, cpuSec: 9 }, "3": { rssKib: 70, vmKib: 90, cpuSec: 1 } } };
    expect(taskExtremes(s, 2)).toEqual({ maxRssTask: 3, maxVmsizeTask: 3, minCpuTask: 3, minCpuSec: 1 });
    expect(taskExtremes(s, 3)).toEqual({ maxRssTask: 3, maxVmsizeTask: 3 });
    expect(taskExtremes(emptySampler(), 1)).toEqual({});
  });

  it("keeps the task ranks with the node they were measured on when nodes' usages merge, and sacct prints them", () => {
    const a = { ...emptyUsage(), maxRssKib: 100, maxRssNode: "n1", maxRssTask: 0, minCpuSec: 5, minCpuNode: "n1", minCpuTask: 1, ntasks: 2 };
    const b = { ...emptyUsage(), maxRssKib: 300, maxRssNode: "n2", maxRssTask: 3, minCpuSec: 2, minCpuNode: "n2", minCpuTask: 2, ntasks: 2 };
    const m = mergeUsage(a, b);
    expect([m.maxRssNode, m.maxRssTask, m.minCpuNode, m.minCpuTask]).toEqual(["n2", 3, "n2", 2]);
    expect(["MaxRSSTask", "MinCPUTask", "MaxVMSizeTask"].map((f) => stepUsageValue(f, m))).toEqual(["3", "2", "0"]);
  });
});
