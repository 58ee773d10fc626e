/**
 * @module agent/cgroup/usage
 * A step's resource usage from its cgroup, as sacct and sstat show it: the
 * memory high-water mark (memory.max_usage_in_bytes on v1, memory.peak on v2),
 * user and system CPU time (cpuacct.usage_user/_sys, cpu.stat), the OOM-kill
 * counter, and periodic samples of /proc/PID/status (VmRSS, VmSize summed over
 * the step's processes) for AveRSS and MaxVMSize, like Slurm's
 * jobacct_gather; per task (its process group, /proc/PID/stat) for MaxRSSTask,
 * MaxVMSizeTask, MinCPU and MinCPUTask. Parsers are pure; readers return 0 for a missing file.
 */
import { readFileSync } from "node:fs";
import type { StepUsage } from "../../net/gen/spur/v1/types_pb.ts";
import type { Plain } from "../../lib/plain.ts";
import type { StatPaths } from "./plan.ts";
import { listPids } from "./fs.ts";

export type Usage = Plain<StepUsage>;

export function emptyUsage(): Usage {
  return {
    maxRssKib: 0, maxRssNode: "", aveRssKib: 0, maxVmsizeKib: 0, maxVmsizeNode: "", aveVmsizeKib: 0, userCpuSec: 0,
    systemCpuSec: 0, minCpuSec: 0, minCpuNode: "", ntasks: 0, maxPages: 0,
  };
}

/** "key value" lines (memory.events, cpu.stat, memory.oom_control) → map. */
export function parseKeyValues(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const [k, v] = line.trim().split(/\s+/);
    if (k && v !== undefined && /^\d+$/.test(v)) out.set(k, Number(v));
  }
  return out;
}

/** /proc/PID/status → { rssKib, vmKib } (VmRSS, VmSize). */
export function parseProcStatus(text: string): { rssKib: number; vmKib: number } {
  const kib = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  return { rssKib: kib("VmRSS"), vmKib: kib("VmSize") };
}

function read(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

const num = (path: string): number => Number(read(path).trim()) || 0;

export interface CgroupCounters {
  peakKib: number;
  userCpuSec: number;
  systemCpuSec: number;
  oomKills: number;
}

export function readCounters(s: StatPaths): CgroupCounters {
  if (s.version === "v1") {
    const oom = (dir: string) => parseKeyValues(read(`${dir}/memory.oom_control`)).get("oom_kill") ?? 0;
    // cpuacct.usage (ns) is exact; usage_user + usage_sys over-count on current kernels, so the
    // total is split by cpuacct.stat's user/system ticks (what Slurm's jobacct_gather/cgroup reads).
    const totalSec = num(`${s.cpuDir}/cpuacct.usage`) / 1e9;
    const ticks = parseKeyValues(read(`${s.cpuDir}/cpuacct.stat`));
    const user = ticks.get("user") ?? 0;
    const system = ticks.get("system") ?? 0;
    const userShare = user + system > 0 ? user / (user + system) : 1;
    return {
      peakKib: num(`${s.memoryDir}/memory.max_usage_in_bytes`) / 1024,
      userCpuSec: totalSec * userShare,
      systemCpuSec: totalSec - totalSec * userShare,
      oomKills: Math.max(oom(s.memoryDir), oom(s.jobMemoryDir)),
    };
  }
  const cpu = parseKeyValues(read(`${s.cpuDir}/cpu.stat`));
  const events = (dir: string) => parseKeyValues(read(`${dir}/memory.events`)).get("oom_kill") ?? 0;
  return {
    peakKib: (num(`${s.memoryDir}/memory.peak`) || num(`${s.memoryDir}/memory.current`)) / 1024,
    ...splitCpu(cpu.get("usage_usec") ?? 0, cpu.get("user_usec") ?? 0, cpu.get("system_usec") ?? 0),
    oomKills: Math.max(events(s.memoryDir), events(s.jobMemoryDir)),
  };
}

/** The exact total (usec) split in the user:system proportion. */
function splitCpu(totalUsec: number, userUsec: number, systemUsec: number): { userCpuSec: number; systemCpuSec: number } {
  const share = userUsec + systemUsec > 0 ? userUsec / (userUsec + systemUsec) : 1;
  const userCpuSec = (totalUsec * share) / 1e6;
  return { userCpuSec, systemCpuSec: totalUsec / 1e6 - userCpuSec };
}

/** Highest RSS / VM size and CPU seconds so far of one task (its process group). */
export interface TaskPeak {
  rssKib: number;
  vmKib: number;
  cpuSec: number;
}

/** Running totals of /proc samples of one step. */
export interface Sampler {
  samples: number;
  rssSumKib: number;
  vmSumKib: number;
  maxRssKib: number;
  maxVmKib: number;
  /** Task leader pid (its process group) → global task rank; set as tasks start. */
  leaders?: Record<string, number>;
  /** Global task rank → its peaks (plain objects: stepd keeps the sampler in a JSON file). */
  perTask?: Record<string, TaskPeak>;
}

export const emptySampler = (): Sampler => ({ samples: 0, rssSumKib: 0, vmSumKib: 0, maxRssKib: 0, maxVmKib: 0 });

/** /proc/PID/stat → process group and CPU seconds (own + reaped children's), at `ticksPerSec`. */
export function parseProcStat(text: string, ticksPerSec = 100): { ppid: number; pgrp: number; cpuSec: number } | undefined {
  const close = text.lastIndexOf(")"); // the command name may hold spaces and parentheses
  if (close < 0) return undefined;
  const f = text.slice(close + 2).split(" "); // f[0] is field 3 (state)
  const n = (i: number): number => Number(f[i - 3] ?? 0) || 0;
  return { ppid: n(4), pgrp: n(5), cpuSec: (n(14) + n(15) + n(16) + n(17)) / ticksPerSec };
}

/**
 * The task of each process: its own leader, or the first ancestor (parent chain within the step)
 * or process group that is a task leader. The parent chain finds what left the task's process
 * group (`timeout`, shells that set up job control); the group finds what was re-parented.
 */
export function taskOfProcesses(stats: ReadonlyMap<number, { ppid: number; pgrp: number }>, leaders: Readonly<Record<string, number>>): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of stats.keys()) {
    let at: number | undefined = pid;
    for (let hops = 0; at !== undefined && hops < 64; hops++) {
      const task = leaders[String(at)];
      if (task !== undefined) {
        out.set(pid, task);
        break;
      }
      at = stats.get(at)?.ppid;
    }
    if (!out.has(pid)) {
      const byGroup = leaders[String(stats.get(pid)?.pgrp ?? -1)];
      if (byGroup !== undefined) out.set(pid, byGroup);
    }
  }
  return out;
}

/** One sample: RSS and VM size summed over the processes in `dir` (and below), and per task when leaders are known. */
export function sample(s: Sampler, dir: string): void {
  let rss = 0;
  let vm = 0;
  const pids = listPids(dir);
  if (pids.length === 0) return;
  const byTask = new Map<number, TaskPeak>();
  const status = new Map<number, { rssKib: number; vmKib: number }>();
  const stats = new Map<number, { ppid: number; pgrp: number; cpuSec: number }>();
  for (const pid of pids) {
    const p = parseProcStatus(read(`/proc/${pid}/status`));
    rss += p.rssKib;
    vm += p.vmKib;
    status.set(pid, p);
    const st = s.leaders === undefined ? undefined : parseProcStat(read(`/proc/${pid}/stat`));
    if (st !== undefined) stats.set(pid, st);
  }
  if (s.leaders !== undefined) {
    for (const [pid, task] of taskOfProcesses(stats, s.leaders)) {
      const p = status.get(pid) ?? { rssKib: 0, vmKib: 0 };
      const t = byTask.get(task) ?? { rssKib: 0, vmKib: 0, cpuSec: 0 };
      byTask.set(task, { rssKib: t.rssKib + p.rssKib, vmKib: t.vmKib + p.vmKib, cpuSec: t.cpuSec + (stats.get(pid)?.cpuSec ?? 0) });
    }
  }
  s.samples += 1;
  s.rssSumKib += rss;
  s.vmSumKib += vm;
  s.maxRssKib = Math.max(s.maxRssKib, rss);
  s.maxVmKib = Math.max(s.maxVmKib, vm);
  for (const [task, t] of byTask) {
    const had = (s.perTask ??= {})[String(task)] ?? { rssKib: 0, vmKib: 0, cpuSec: 0 };
    s.perTask[String(task)] = { rssKib: Math.max(had.rssKib, t.rssKib), vmKib: Math.max(had.vmKib, t.vmKib), cpuSec: Math.max(had.cpuSec, t.cpuSec) };
  }
}

/** The per-task extremes of a step on this node (MaxRSSTask, MaxVMSizeTask, MinCPUTask); none without per-task samples. */
export function taskExtremes(s: Sampler, ntasks: number): Partial<Usage> {
  const tasks = Object.entries(s.perTask ?? {}).map(([id, t]) => ({ id: Number(id), ...t }));
  if (tasks.length === 0) return {};
  const most = (key: "rssKib" | "vmKib") => tasks.reduce((a, b) => (b[key] > a[key] || (b[key] === a[key] && b.id < a.id) ? b : a));
  const out: Partial<Usage> = { maxRssTask: most("rssKib").id, maxVmsizeTask: most("vmKib").id };
  // The least CPU of one task is known only when every task here was sampled.
  if (tasks.length >= ntasks) {
    const least = tasks.reduce((a, b) => (b.cpuSec < a.cpuSec || (b.cpuSec === a.cpuSec && b.id < a.id) ? b : a));
    Object.assign(out, { minCpuTask: least.id, minCpuSec: least.cpuSec });
  }
  return out;
}

/** The step's usage on this node from its counters and samples. */
export function nodeUsage(c: CgroupCounters, s: Sampler, node: string, ntasks: number): Usage {
  const maxRss = Math.max(c.peakKib, s.maxRssKib);
  const cpu = c.userCpuSec + c.systemCpuSec;
  return {
    ...emptyUsage(),
    maxRssKib: Math.round(maxRss), maxRssNode: node,
    aveRssKib: Math.round(s.samples > 0 ? s.rssSumKib / s.samples : maxRss),
    maxVmsizeKib: s.maxVmKib, maxVmsizeNode: node, aveVmsizeKib: Math.round(s.samples > 0 ? s.vmSumKib / s.samples : 0),
    userCpuSec: c.userCpuSec, systemCpuSec: c.systemCpuSec, minCpuSec: cpu, minCpuNode: node, ntasks,
    ...taskExtremes(s, ntasks),
  };
}
