/**
 * @module agent/containment
 * spurd's view of job containment: what the host offers (detected once), the
 * GPU device files of this node (gres.conf) and the cores each running job
 * holds (the controller chooses them: NodeAlloc.cpuIds; only an older
 * controller's shares without ids are placed here), turned into a cgroup plan per job step. The cores of batch jobs are
 * kept in their spool folder (launch.json) so a restarted spurd still knows
 * them; jobs with only srun steps on this node are kept in memory.
 */
import { logicalToOsCpus, type CpuTopology } from "../devices/cpu-topology.ts";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createHash } from "node:crypto";
import type { ConsolaInstance } from "consola/core";
import { detectCgroups, type CgroupSupport } from "./cgroup/detect.ts";
import { planStep, jobName, stepName, type CgroupPlan, type DeviceRule } from "./cgroup/plan.ts";
import { killTree, removeTrees } from "./cgroup/fs.ts";
import { formatCpuList, hostCpusFor, parseCpuList, pickCpus, pickCpusNear } from "../lib/cpu-list.ts";
import { parseSocketCpus } from "../compat/gpu-locality.ts";
import { deviceRules } from "./cgroup/gres-files.ts";
import { memoryLimits, SLURM_DEFAULTS, type CgroupConstraints } from "./cgroup/cgroup-conf.ts";
import { jobDir, listJobIds, readJson, type LaunchFile } from "./spool.ts";

export interface NodeShare {
  cpus: number;
  memMib: number;
  gpuIndices: readonly number[];
  /** CPUs per socket as the controller counted them ("8,0"); absent = any socket. */
  socketCpus?: string | undefined;
  /** The node's CPU ids the controller chose for the job ("0-3"); absent = picked here (an older controller). */
  cpuIds?: string | undefined;
}

export interface StepContainment {
  plan: CgroupPlan;
  /** Configured CPU ids the job holds on this node. */
  cpuIds: number[];
  /** Whether only the allocated GPUs can be opened (visible-device variables then count from 0). */
  constrainDevices: boolean;
  /** The host CPUs of the job's cpuset, and the host's cores as thread siblings (task binding). */
  hostCpus: number[];
  cores: number[][];
  /** The host's CPUs by socket (physical package), for task binding by socket. */
  sockets: number[][];
}

export interface Containment {
  support: CgroupSupport;
  /** A plan for `step` of `jobId`, or undefined when jobs run uncontained here. */
  planFor(jobId: number, step: string, share: NodeShare): StepContainment | undefined;
  /** Forget the cores of a job with only srun steps here (its last step ended). */
  release(jobId: number): void;
  /**
   * Kill and remove cgroups nobody owns: srun steps (their tasks were this spurd's children
   * and their output streams died with it) and jobs with no batch script in the spool.
   * Run at start (after a crash) and at shutdown. Returns the directories that stayed.
   */
  sweep(): Promise<string[]>;
}

export interface ContainmentOptions {
  spool: string;
  nodeName: string;
  nodeCpus: number;
  /**
   * The host's CPU topology when it has the node's configured shape: logical CPU ids (thread t of
   * core k = k*T+t) then map to the OS CPUs of that core, whatever the OS numbering. Absent: by position.
   */
  cpuTopology?: CpuTopology | undefined;
  confPath: string;
  /** spur.conf CgroupPlugin: autodetect (default), cgroup/v1, cgroup/v2, disabled. */
  plugin: string;
  /**
   * Device file(s) of each GPU of this node, index order, as the node registers them (gres.conf File= or
   * discovery); several comma-separated for a MIG instance (its parent GPU's file, then its capability files).
   */
  gpuFiles: string[];
  /** Local CPU list of each GPU ("0-15"; "" = unknown): the job's cores are taken near its GPUs. */
  gpuCpus?: string[];
  /** cgroup.conf switches (what is enforced); absent = Slurm's defaults, nothing constrained. */
  constraints?: CgroupConstraints;
  logger: ConsolaInstance;
}

/** A short name unique to this spurd's spool (parallel clusters and nodes never share cgroups). */
export function spoolTag(spool: string): string {
  return createHash("sha256").update(spool).digest("hex").slice(0, 10);
}

export function createContainment(o: ContainmentOptions): Containment {
  const support = detectCgroups(spoolTag(o.spool), o.plugin);
  const constraints = o.constraints ?? SLURM_DEFAULTS;
  const gpuFiles = o.gpuFiles.filter((f) => f !== "");
  const gpuRules = unitRules(o.gpuFiles);
  const stepOnlyJobs = new Map<number, number[]>();
  const cores = readCores(support.hostCpus);
  const sockets = readSockets(support.hostCpus);
  o.logger.info({ message: `job containment: ${support.summary}`, hostCpus: formatCpuList(support.hostCpus), gpuFiles: gpuFiles.length });
  if (o.nodeCpus > support.hostCpus.length && support.layout !== undefined) {
    o.logger.warn({ message: `node has ${o.nodeCpus} CPUs configured but the host offers ${support.hostCpus.length}: cpusets share host CPUs` });
  }
  // A MIG instance shares its parent's file with its siblings by design: only each unit's own (last) file must be unique.
  const collision = sharedDeviceNumbers(gpuRules.map((r) => r?.[r.length - 1]));
  if (collision !== "") o.logger.warn({ message: `GPU device files share device numbers (${collision}): GPUs cannot be isolated from each other` });

  function takenCpus(except: number): Set<number> {
    const taken = new Set<number>();
    for (const id of listJobIds(o.spool)) {
      if (id === except) continue;
      for (const c of readJson<LaunchFile>(join(jobDir(o.spool, id), "launch.json"))?.cpuIds ?? []) taken.add(c);
    }
    for (const [id, cpus] of stepOnlyJobs) if (id !== except) for (const c of cpus) taken.add(c);
    return taken;
  }

  function cpuIdsOf(jobId: number, share: NodeShare): number[] {
    const launch = readJson<LaunchFile>(join(jobDir(o.spool, jobId), "launch.json"));
    if (launch?.cpuIds !== undefined) return launch.cpuIds;
    const known = stepOnlyJobs.get(jobId);
    if (known !== undefined) return known;
    const chosen = share.cpuIds ? parseCpuList(share.cpuIds).filter((c) => c < o.nodeCpus) : [];
    if (chosen.length > 0) return chosen;
    const localCpus = share.gpuIndices.flatMap((g) => parseCpuList(o.gpuCpus?.[g] ?? "")).filter((c) => c < o.nodeCpus);
    const socketCpus = parseSocketCpus(share.socketCpus);
    if (localCpus.length === 0 && socketCpus.length === 0) return pickCpus(share.cpus, o.nodeCpus, takenCpus(jobId));
    return pickCpusNear(share.cpus, o.nodeCpus, takenCpus(jobId), { socketCpus, localCpus });
  }

  return {
    support,
    planFor(jobId, step, share) {
      const layout = support.layout;
      if (layout === undefined) return undefined;
      const batch = step === "batch" ? undefined : readJson<LaunchFile>(join(jobDir(o.spool, jobId), "launch.json"));
      // A step of a batch job here lives inside the batch job's limits; a job of steps only brings its own.
      if (batch?.share !== undefined) share = batch.share;
      const cpuIds = cpuIdsOf(jobId, share);
      if (step !== "batch" && batch === undefined) stepOnlyJobs.set(jobId, cpuIds);
      const allowed = share.gpuIndices.flatMap((i) => gpuRules[i] ?? []);
      // Files of GPUs the job was not given, except those one of its own GPUs needs too (a MIG's parent /dev/nvidiaN).
      const deny = gpuRules.flatMap((r, i) => (r === undefined || share.gpuIndices.includes(i) ? [] : r)).filter((r) => !allowed.some((a) => sameDevice(a, r)));
      const onHost = o.cpuTopology === undefined ? [] : logicalToOsCpus(cpuIds, o.cpuTopology).filter((c) => support.hostCpus.includes(c));
      const hostCpus = onHost.length === cpuIds.length && onHost.length > 0 ? onHost : hostCpusFor(cpuIds, support.hostCpus);
      // Only what cgroup.conf switches on is enforced; the cgroup still tracks, kills and measures the job.
      const mem = memoryLimits(constraints, share.memMib);
      const plan = planStep(layout, {
        tag: support.tag, jobId, step, memBytes: mem.ramBytes, ...(mem.swapBytes !== undefined ? { swapBytes: mem.swapBytes } : {}),
        cpus: constraints.cores ? formatCpuList(hostCpus) : "", hostCpus: formatCpuList(support.hostCpus),
        hostMems: support.hostMems, denyDevices: constraints.devices ? deny : [], memsw: support.memsw,
      });
      for (const gap of plan.gaps) o.logger.warn({ message: gap, jobId });
      // Isolation (and Slurm's renumbering from 0) only when every GPU of the node is a real
      // device file the cgroup can deny: declared fake GPUs (spur up) stay globally numbered.
      const constrainDevices = constraints.devices && gpuRules.length > 0 && gpuRules.every((r) => r !== undefined) && collision === "" && plan.gaps.length === 0;
      return { plan, cpuIds, constrainDevices, hostCpus: hostCpus.length > 0 ? hostCpus : support.hostCpus, cores, sockets };
    },
    release(jobId) {
      stepOnlyJobs.delete(jobId);
    },
    async sweep() {
      const layout = support.layout;
      if (layout === undefined) return [];
      const left: string[] = [];
      const live = new Set(listJobIds(o.spool).filter((id) => readJson<LaunchFile>(join(jobDir(o.spool, id), "launch.json"))?.cgroup !== undefined));
      // Any step's plan names every hierarchy's directories; build one per job found in the tree.
      const probe = (jobId: number, step: string) =>
        planStep(layout, { tag: support.tag, jobId, step, memBytes: 0, cpus: "", hostCpus: "", hostMems: "", denyDevices: [], memsw: false });
      for (const jobId of jobsInTree(probe(1, "batch").trackDir)) {
        const plan = probe(jobId, "batch");
        if (!live.has(jobId)) {
          if ((await killTree(plan.kill, plan.trackDir)) > 0) left.push(plan.trackDir);
          left.push(...removeTrees(plan.jobDirs));
          continue;
        }
        for (const step of stepsInTree(plan.trackDir).filter((s) => s !== "batch")) {
          const sp = probe(jobId, step);
          await killTree(sp.stepKill, sp.stepTrackDir);
          left.push(...removeTrees(sp.stepDirs));
        }
      }
      if (left.length > 0) o.logger.warn({ message: "cgroups left after sweeping", dirs: left.join(" ") });
      return left;
    },
  };
}

/** Job ids with a job_<id> directory beside `sampleJobDir` (the spur_<tag> root's children). */
function jobsInTree(sampleJobDir: string): number[] {
  const root = dirname(sampleJobDir);
  const prefix = jobName(0).replace(/0$/, "");
  return listDirs(root).filter((n) => n.startsWith(prefix)).map((n) => Number(n.slice(prefix.length))).filter((n) => Number.isInteger(n) && n > 0);
}

function stepsInTree(jobDirPath: string): string[] {
  const prefix = stepName("");
  return listDirs(jobDirPath).filter((n) => n.startsWith(prefix)).map((n) => n.slice(prefix.length));
}

function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}

/** Rules of each GPU unit from its comma-separated files; undefined when any file is missing or not a device. */
function unitRules(files: readonly string[]): (DeviceRule[] | undefined)[] {
  return files.map((text) => {
    const paths = text.split(",").filter((p) => p !== "");
    const rules = deviceRules(paths);
    return paths.length > 0 && rules.every((r) => r !== undefined) ? (rules as DeviceRule[]) : undefined;
  });
}

const sameDevice = (a: DeviceRule, b: DeviceRule): boolean => a.kind === b.kind && a.major === b.major && a.minor === b.minor;

function sharedDeviceNumbers(rules: readonly (DeviceRule | undefined)[]): string {
  const seen = new Set<string>();
  for (const r of rules) {
    if (r === undefined) continue;
    const key = `${r.kind} ${r.major}:${r.minor}`;
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return "";
}

/** The host's CPUs grouped by socket (sysfs physical_package_id; all on one when unknown), lowest package first. */
function readSockets(cpus: readonly number[]): number[][] {
  const byPackage = new Map<number, number[]>();
  for (const cpu of cpus) {
    let pkg = 0;
    try {
      pkg = Number(readFileSync(`/sys/devices/system/cpu/cpu${cpu}/topology/physical_package_id`, "utf8").trim()) || 0;
    } catch {
      /* no topology: one socket */
    }
    byPackage.set(pkg, [...(byPackage.get(pkg) ?? []), cpu]);
  }
  return [...byPackage.entries()].sort((a, b) => a[0] - b[0]).map(([, ids]) => ids);
}

/** The host's cores as lists of thread siblings (from sysfs topology); each CPU alone when unknown. */
function readCores(cpus: readonly number[]): number[][] {
  const seen = new Map<string, number[]>();
  for (const cpu of cpus) {
    let siblings = String(cpu);
    try {
      siblings = readFileSync(`/sys/devices/system/cpu/cpu${cpu}/topology/thread_siblings_list`, "utf8").trim() || siblings;
    } catch {
      /* no topology: the CPU is its own core */
    }
    if (!seen.has(siblings)) seen.set(siblings, parseCpuList(siblings));
  }
  return [...seen.values()];
}
