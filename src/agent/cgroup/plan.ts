/**
 * @module agent/cgroup/plan
 * The pure cgroup planner: from a layout, a per-spurd tag and a job step's
 * limits to the directories to create, the files to write (in order) and the
 * files that name the step's processes, for v1 and v2 alike. The tree is
 *   <own cgroup of spurd>/spur_<tag>/job_<id>/step_<batch|N>
 * in every hierarchy, limits on the job level (steps share them, as in Slurm),
 * processes only in step leaves (v2's no-internal-process rule; accounting per
 * step). The applier (fs.ts) performs the plan; nothing here touches a file.
 */
import { assert } from "../../lib/assert.ts";
import type { Controller, Layout } from "./layout.ts";

export interface DeviceRule {
  kind: "c" | "b";
  major: number;
  minor: number;
}

export interface StepLimits {
  /** Spurd's tag: keeps parallel spurds (and clusters) apart on one host. */
  tag: string;
  jobId: number;
  /** "batch", "extern" or the step number. */
  step: string;
  /** Hard memory limit of the job on this node; 0 = none. */
  memBytes: number;
  /** The job's cpuset ("0-1,4"); "" = every host CPU. */
  cpus: string;
  /** Host CPUs and memory nodes (the base cpuset), needed to populate new v1 cpusets. */
  hostCpus: string;
  hostMems: string;
  /** Devices the job must not open (GPUs of this node not allocated to it). */
  denyDevices: DeviceRule[];
  /** v1: memory.memsw.* exists (swap accounting), so swap can be limited too. */
  memsw: boolean;
  /** ConstrainSwapSpace: swap allowed beyond memBytes (v1 memsw = memBytes + this; v2 memory.swap.max); absent = swap not limited. */
  swapBytes?: number;
}

export interface FileWrite {
  path: string;
  value: string;
}

export interface StatPaths {
  version: "v1" | "v2";
  /** The step's directory holding memory files / cpu accounting files. */
  memoryDir: string;
  cpuDir: string;
  /** The job's memory directory (its OOM counter covers every step). */
  jobMemoryDir: string;
}

export interface CgroupPlan {
  mkdirs: string[];
  writes: FileWrite[];
  /** Write a task's pid into each of these to move it into the step. */
  procs: string[];
  /** The job's directory in every hierarchy (teardown walks and removes them). */
  jobDirs: string[];
  /** The step's directory in every hierarchy. */
  stepDirs: string[];
  /** The directory whose cgroup.procs (recursively) lists every process of the job. */
  trackDir: string;
  /** v1: the job's freezer directory; v2: the job directory (cgroup.kill). */
  kill: { kind: "freezer" | "cgroup.kill"; dir: string };
  /** The same for the step alone (an srun step ends, its job goes on). */
  stepTrackDir: string;
  stepKill: { kind: "freezer" | "cgroup.kill"; dir: string };
  stats: StatPaths;
  /** What this layout cannot enforce, for the log ("" when everything is). */
  gaps: string[];
  /** v2: a BPF device program to attach to the job's directory, refusing these devices. */
  deviceFilter?: { dir: string; deny: DeviceRule[] };
}

export const rootName = (tag: string): string => `spur_${tag}`;
export const jobName = (jobId: number): string => `job_${jobId}`;
export const stepName = (step: string): string => `step_${step}`;

/** mount + own + parts, with exactly one "/" between pieces. */
export function cgroupPath(mount: string, own: string, ...parts: string[]): string {
  const pieces = [mount, own, ...parts].map((p) => p.replace(/^\/+|\/+$/g, "")).filter((p) => p !== "");
  return `/${pieces.join("/")}`;
}

export function planStep(layout: Layout, l: StepLimits): CgroupPlan {
  assert(/^[A-Za-z0-9_-]+$/.test(l.tag), "cgroup tag must be a plain name");
  assert(/^[A-Za-z0-9_-]+$/.test(l.step), "step name must be a plain name");
  assert(Number.isInteger(l.jobId) && l.jobId > 0, "job id must be positive");
  const plan = layout.version === "v1" ? planV1(layout, l) : planV2(layout, l);
  assert(plan.procs.length > 0 && plan.jobDirs.length > 0, "a plan attaches processes somewhere");
  return plan;
}

function planV1(layout: Extract<Layout, { version: "v1" }>, l: StepLimits): CgroupPlan {
  const controllers = (Object.keys(layout.mounts) as Controller[]).sort();
  const plan: CgroupPlan = {
    mkdirs: [], writes: [], procs: [], jobDirs: [], stepDirs: [], trackDir: "", kill: { kind: "freezer", dir: "" },
    stepTrackDir: "", stepKill: { kind: "freezer", dir: "" },
    stats: { version: "v1", memoryDir: "", cpuDir: "", jobMemoryDir: "" }, gaps: [],
  };
  for (const c of controllers) {
    const mount = layout.mounts[c] ?? "";
    const own = layout.own[c] ?? "/";
    const root = cgroupPath(mount, own, rootName(l.tag));
    const job = cgroupPath(mount, own, rootName(l.tag), jobName(l.jobId));
    const step = cgroupPath(mount, own, rootName(l.tag), jobName(l.jobId), stepName(l.step));
    plan.mkdirs.push(root, job, step);
    plan.jobDirs.push(job);
    plan.stepDirs.push(step);
    plan.procs.push(`${step}/cgroup.procs`);
    if (c === "cpuset") {
      // A new v1 cpuset is empty: every level must be populated before a process can join.
      const cpus = l.cpus || l.hostCpus;
      plan.writes.push(...cpusetWrites(root, l.hostCpus, l.hostMems), ...cpusetWrites(job, cpus, l.hostMems), ...cpusetWrites(step, cpus, l.hostMems));
    }
    if (c === "memory") {
      // memory.oom_control stays at its default (the kernel OOM-kills in the cgroup).
      if (l.memBytes > 0) {
        plan.writes.push({ path: `${job}/memory.limit_in_bytes`, value: String(l.memBytes) });
        if (l.memsw && l.swapBytes !== undefined) plan.writes.push({ path: `${job}/memory.memsw.limit_in_bytes`, value: String(l.memBytes + l.swapBytes) });
      }
      plan.stats.memoryDir = step;
      plan.stats.jobMemoryDir = job;
    }
    if (c === "devices") for (const d of l.denyDevices) plan.writes.push({ path: `${job}/devices.deny`, value: deviceRule(d) });
    if (c === "cpuacct") plan.stats.cpuDir = step;
    if (c === "freezer") {
      plan.kill = { kind: "freezer", dir: job };
      plan.trackDir = job;
      plan.stepKill = { kind: "freezer", dir: step };
      plan.stepTrackDir = step;
    }
  }
  if (layout.mounts.devices === undefined && l.denyDevices.length > 0) plan.gaps.push("no devices controller: GPUs not isolated");
  // Controllers co-mounted in one hierarchy (e.g. "cpu,cpuacct") share their directories.
  for (const key of ["mkdirs", "procs", "jobDirs", "stepDirs"] as const) plan[key] = [...new Set(plan[key])];
  return plan;
}

function planV2(layout: Extract<Layout, { version: "v2" }>, l: StepLimits): CgroupPlan {
  const enable = ["cpuset", "memory", "pids"].filter((c) => layout.controllers.includes(c));
  const subtree = enable.map((c) => `+${c}`).join(" ");
  const base = cgroupPath(layout.mount, layout.own);
  const root = cgroupPath(layout.mount, layout.own, rootName(l.tag));
  const job = `${root}/${jobName(l.jobId)}`;
  const step = `${job}/${stepName(l.step)}`;
  const writes: FileWrite[] = [];
  if (subtree !== "") {
    for (const dir of [base, root, job]) writes.push({ path: `${dir}/cgroup.subtree_control`, value: subtree });
  }
  if (enable.includes("cpuset") && l.cpus !== "") {
    writes.push({ path: `${job}/cpuset.cpus`, value: l.cpus }, { path: `${job}/cpuset.mems`, value: l.hostMems });
  }
  if (enable.includes("memory") && l.memBytes > 0) {
    writes.push({ path: `${job}/memory.max`, value: String(l.memBytes) });
    if (l.swapBytes !== undefined) writes.push({ path: `${job}/memory.swap.max`, value: String(l.swapBytes) });
  }
  // v2 has no devices controller: a BPF device program on the job's directory does its work.
  const filter = l.denyDevices.length > 0 ? { deviceFilter: { dir: job, deny: [...l.denyDevices] } } : {};
  return {
    mkdirs: [root, job, step], writes, procs: [`${step}/cgroup.procs`], jobDirs: [job], stepDirs: [step], trackDir: job,
    kill: { kind: "cgroup.kill", dir: job }, stepTrackDir: step, stepKill: { kind: "cgroup.kill", dir: step },
    stats: { version: "v2", memoryDir: step, cpuDir: step, jobMemoryDir: job }, gaps: [], ...filter,
  };
}

function cpusetWrites(dir: string, cpus: string, mems: string): FileWrite[] {
  return [{ path: `${dir}/cpuset.cpus`, value: cpus }, { path: `${dir}/cpuset.mems`, value: mems }];
}

/**
 * Denies reading and writing the device; mknod ("m") stays allowed: a node made without the
 * right to open it is harmless, and an OCI runtime must be able to grant a container's own
 * cgroup its fixed "c *:* m" rule below the job's (v1 refuses a child any access the parent
 * denies on an overlapping device, which "m" here would be).
 */
export function deviceRule(d: DeviceRule): string {
  return `${d.kind} ${d.major}:${d.minor} rw`;
}
