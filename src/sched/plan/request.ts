/**
 * @module sched/plan/request
 * Turns what the user typed (JobSpec) into the resource request the scheduler
 * fits: node count range, tasks, CPUs, memory and GPUs per node. One place for
 * Slurm's defaulting rules so that validation, scheduling and `--test-only`
 * always agree.
 */
import type { ControllerConfig, JobRecord, JobSpecP } from "../model/types.ts";
import { gresPerNodeText, type GresItem } from "../../compat/gres-generic.ts";
import { SHARING_GRES } from "./gres-fit.ts";
import { NODES_UNBOUNDED, normaliseAsk, withRequiredNodes, type LayoutShape } from "../../compat/job-layout.ts";
import { userAskOf, type UserAsk } from "./user-exclusive.ts";

export interface ResourceRequest {
  nodesMin: number;
  /** The most nodes (-N's maximum; without -N, as many as the tasks need: job-layout's NODES_UNBOUNDED). */
  nodesMax: number;
  /** -N/-n/-c/--ntasks-per-node/-O as Slurm reads them (job-layout.ts); absent = nodesMin..nodesMax as given, no overcommit. */
  layout?: LayoutShape;
  /** Total tasks; tasks are placed block-wise, cpusPerTask CPUs each. */
  ntasks: number;
  /** 0 = no per-node task cap. */
  ntasksPerNode: number;
  cpusPerTask: number;
  /** Memory per node: fixed, per allocated CPU, per GPU, or the whole node (0). */
  mem: { kind: "node"; mib: number } | { kind: "cpu"; mib: number } | { kind: "gpu"; mib: number } | { kind: "all" };
  gpusPerNode: number;
  /** Total GPUs for --gpus on a job whose node count may be more than one (spread); 0 when per-node only. */
  gpusTotal: number;
  gpusPerTask: number;
  gpuType: string;
  /** --cpus-per-gpu: a node share has at least this many CPUs per allocated GPU (0/absent = no rule). */
  cpusPerGpu?: number;
  /** --switches=N: most leaf switches (topology.conf) the nodes may span; 0/absent = any. */
  switchesMax?: number;
  /** Set by the caller once the job has waited --switches' time: any switch count is then accepted. */
  switchWaitOver?: boolean;
  /** --gpus-per-socket: GPUs on each of the socketsPerNode sockets (0/absent = none). */
  gpusPerSocket?: number;
  /** --sockets-per-node: sockets the share uses (0/absent = any). */
  socketsPerNode?: number;
  /** --gres-flags=enforce-binding: CPUs only on the sockets of the share's GPUs. */
  enforceBinding?: boolean;
  /** --hint=nomultithread / --threads-per-core=1: each task CPU is a whole core (all its threads are allocated). */
  oneThreadPerCore?: boolean;
  /** --ntasks-per-socket: at most this many tasks on each socket of a node (0/absent = any). */
  ntasksPerSocket?: number;
  /** --cores-per-socket: only nodes with at least this many cores per socket (0/absent = any). */
  coresPerSocket?: number;
  /** --use-min-nodes: a node range takes its minimum when that holds the job (else as few more as needed). */
  useMinNodes?: boolean;
  /** --spread-job: the tasks over as many nodes as may hold them (at most one node per task, -N's maximum), evenly. */
  spreadJob?: boolean;
  /** --threads-per-core / -B S:C:T: only nodes with at least this many threads per core (absent = any; Slurm 22.05 leaves others pending BadConstraints). */
  threadsPerCoreMin?: number;
  exclusive: boolean;
  /** --gres items other than gpu (nvme:2, bandwidth:lustre:1G, shard:4), per node; absent = none. */
  gresGeneric?: GresItem[];
  /** --mincpus: each node's share has at least this many CPUs (0/absent = no rule). */
  minCpusPerNode?: number;
  /**
   * Tasks a node must have the CPUs for, from --ntasks-per-core when neither --ntasks-per-node nor
   * --ntasks-per-socket is given and the job does not overcommit (22.05 takes it as the node's least
   * task count: `--ntasks-per-core=5` on 4-CPU nodes is "Requested node configuration is not
   * available", `-O` or `--ntasks-per-node=4` with it is placed; oracle). Absent: no rule.
   */
  leastTasksPerNode?: number;
  /** --tmp: TmpDisk (MiB) each node must have (0/absent = any). */
  tmpMib?: number;
  /** --contiguous: a multi-node job's nodes are consecutive in the cluster's node order. */
  contiguous?: boolean;
  nodelist: string[];
  exclude: string[];
  features: string[];
  /** --prefer: features tried first (with `features`); when no such placement exists now, the job is placed without them. */
  prefer?: string[];
  /** The job's uid and --exclusive=user, for user-exclusive.ts's rule; absent = the rule is not applied (requests built outside a pass). */
  user?: UserAsk;
}

/** "mi300x:2" / "2" / "mi300x" (one of the type) -> { type, count }; undefined when malformed. */
export function parseTypedCount(text: string): { type: string; count: number; countOmitted?: boolean } | undefined {
  if (!text) return { type: "", count: 0 };
  // a type alone asks for one GPU of it, and is shown without a count (oracle 22.05: --gpus-per-node=gpu is gres:gpu:gpu)
  if (/^[A-Za-z_][\w.-]*$/.test(text)) return { type: text, count: 1, countOmitted: true };
  const parts = text.split(":");
  const countText = parts.pop() ?? "";
  if (!/^\d+$/.test(countText)) return undefined;
  const type = parts.join(":");
  return { type: type.startsWith("gpu:") ? type.slice(4) : type === "gpu" ? "" : type, count: Number(countText) };
}

export function buildRequest(
  spec: JobSpecP,
  config: ControllerConfig,
  expand: (hostlist: string) => string[],
): ResourceRequest | string {
  const cpusPerTask = spec.cpusPerTask || 1;
  const { shape: asked } = normaliseAsk({
    nodesMin: spec.nodesMin, nodesMax: spec.nodesMax, ntasks: spec.ntasks, cpusPerTask: spec.cpusPerTask,
    ntasksPerNode: spec.ntasksPerNode, overcommit: spec.overcommit, exclusive: spec.exclusive,
  });
  // a list with repeats (-m arbitrary: one entry per task) asks for each node once
  const nodelist = spec.nodelist ? [...new Set(expand(spec.nodelist))] : [];
  const shape = withRequiredNodes(asked, nodelist.length);
  const nodesMin = shape.nodesMin;
  let ntasks = shape.ntasks;
  // the most nodes the job may have: -N's maximum, else one per task given, else as many as it needs
  const nodesMost = shape.nodesGiven ? shape.nodesMax : shape.ntasksGiven ? shape.ntasks : NODES_UNBOUNDED;
  const gpu = gpuRequest(spec, nodesMost);
  if (typeof gpu === "string") return gpu;
  const generic = genericGresRequest(spec, config);
  if (typeof generic === "string") return generic;
  if (spec.ntasksPerGpu > 0) ntasks = applyTasksPerGpu(spec, gpu, ntasks, nodesMin);
  const layout: LayoutShape = { ...shape, ntasks };
  return {
    nodesMin,
    nodesMax: shape.nodesGiven ? shape.nodesMax : NODES_UNBOUNDED,
    layout,
    ntasks,
    ntasksPerNode: spec.ntasksPerNode,
    cpusPerTask,
    mem: memRequest(spec, config),
    ...gpu,
    cpusPerGpu: spec.cpusPerGpu,
    ...socketRequest(spec),
    switchesMax: spec.reqSwitch,
    // --ntasks-per-core=1: one task per core, its other threads idle, as --hint=nomultithread
    oneThreadPerCore: spec.hint === "nomultithread" || spec.hint === "compute_bound" || spec.threadsPerCore === 1 || spec.ntasksPerCore === 1,
    ntasksPerSocket: spec.ntasksPerSocket ?? 0,
    coresPerSocket: spec.coresPerSocket ?? 0,
    ...(spec.threadsPerCore > 1 ? { threadsPerCoreMin: spec.threadsPerCore } : {}),
    ...(spec.spreadJob === true ? { spreadJob: true } : {}),
    ...(spec.useMinNodes === true ? { useMinNodes: true } : {}),
    exclusive: spec.exclusive,
    ...(generic.length > 0 ? { gresGeneric: generic } : {}),
    ...((spec.mincpus ?? 0) > 0 ? { minCpusPerNode: spec.mincpus } : {}),
    ...((spec.ntasksPerCore ?? 0) > 0 && !(spec.ntasksPerNode > 0) && !((spec.ntasksPerSocket ?? 0) > 0) && !spec.overcommit
      ? { leastTasksPerNode: spec.ntasksPerCore } : {}),
    ...(spec.contiguous ? { contiguous: true } : {}),
    ...((spec.tmpMib ?? 0) > 0 ? { tmpMib: spec.tmpMib } : {}),
    nodelist,
    exclude: spec.exclude ? expand(spec.exclude) : [],
    features: spec.constraint ? spec.constraint.split(/[&,]/).filter(Boolean) : [],
    ...(spec.prefer ? { prefer: spec.prefer.split(/[&,]/).filter(Boolean) } : {}),
  };
}

/** A queued job's request, with its side of --exclusive=user's rule (the scheduler's and the plan applier's requests). */
export function jobRequest(job: JobRecord, config: ControllerConfig, expand: (hostlist: string) => string[]): ResourceRequest | string {
  const req = buildRequest(job.spec, config, expand);
  if (typeof req !== "string") req.user = userAskOf(job);
  return req;
}

/** --gpus-per-socket, --sockets-per-node and --gres-flags=enforce-binding, when given. */
function socketRequest(spec: JobSpecP): Pick<ResourceRequest, "gpusPerSocket" | "socketsPerNode" | "enforceBinding"> {
  const out: Pick<ResourceRequest, "gpusPerSocket" | "socketsPerNode" | "enforceBinding"> = {};
  const perSocket = spec.gpusPerSocket ? parseTypedCount(spec.gpusPerSocket) : undefined;
  if (perSocket !== undefined && perSocket.count > 0) out.gpusPerSocket = perSocket.count;
  if (spec.socketsPerNode) out.socketsPerNode = spec.socketsPerNode;
  if ((spec.gresFlags ?? "").split(",").includes("enforce-binding")) out.enforceBinding = true;
  return out;
}

function memRequest(spec: JobSpecP, config: ControllerConfig): ResourceRequest["mem"] {
  if (spec.memPerNodeMib !== undefined) return spec.memPerNodeMib === 0 ? { kind: "all" } : { kind: "node", mib: spec.memPerNodeMib };
  // --mem-per-cpu=0 is all of each node's memory, as --mem=0 (oracle 22.05: TRES mem=4000M per node, MinMemoryNode=0; seed 9795)
  if (spec.memPerCpuMib !== undefined) return spec.memPerCpuMib === 0 ? { kind: "all" } : { kind: "cpu", mib: spec.memPerCpuMib };
  // --mem-per-gpu=0 leaves the default memory (oracle: MinMemoryCPU=256M with MemPerTres=gres:gpu:0)
  if (spec.memPerGpuMib !== undefined && spec.memPerGpuMib > 0) return { kind: "gpu", mib: spec.memPerGpuMib };
  if (config.defMemPerCpuMiB > 0) return { kind: "cpu", mib: config.defMemPerCpuMiB };
  return { kind: "all" };
}

type GpuPart = Pick<ResourceRequest, "gpusPerNode" | "gpusTotal" | "gpusPerTask" | "gpuType">;

function gpuRequest(spec: JobSpecP, nodesMost: number): GpuPart | string {
  const part: GpuPart = { gpusPerNode: 0, gpusTotal: 0, gpusPerTask: 0, gpuType: "" };
  for (const g of spec.gresPerNode) {
    if (g.name !== "gpu") continue; // generic names: genericGresRequest
    part.gpusPerNode = g.count;
    part.gpuType = g.type;
  }
  for (const [text, key] of [
    [spec.gpusPerNode, "gpusPerNode"],
    [spec.gpus, "gpusTotal"],
    [spec.gpusPerTask, "gpusPerTask"],
  ] as const) {
    if (!text) continue;
    const tc = parseTypedCount(text);
    if (!tc) return `Invalid generic resource (gres) specification`;
    part[key] = tc.count;
    if (tc.type) part.gpuType = tc.type;
  }
  if (spec.gpusPerSocket) {
    const tc = parseTypedCount(spec.gpusPerSocket);
    if (!tc) return `Invalid generic resource (gres) specification`;
    if (tc.type) part.gpuType = tc.type;
  }
  // --gpus=N on a job held to one node is that node's count; where the node count may grow, N stays
  // the job's (fit-node's fewest-nodes rule spreads it: oracle 22.05, --gpus=9 on 8-GPU nodes takes 2)
  if (part.gpusTotal > 0 && nodesMost <= 1 && part.gpusPerNode === 0) {
    part.gpusPerNode = part.gpusTotal;
    part.gpusTotal = 0;
  }
  return part;
}

/** Count of one --gres item (countWide carries counts above uint32). */
export const gresRequestCount = (g: { count: number; countWide?: number | undefined }): number => g.countWide ?? g.count;

/**
 * The --gres items other than gpu. A name not in GresTypes is refused with Slurm's
 * wording (oracle golden 088: `sbatch --gres=fpga:1` on a GresTypes=gpu cluster); count 0 asks nothing
 * and is not checked.
 */
function genericGresRequest(spec: JobSpecP, config: ControllerConfig): GresItem[] | string {
  const out: GresItem[] = [];
  // gres.html: a job asks a GPU either whole (gpu) or shared (mps, shard), never both.
  const wholeGpus = spec.gresPerNode.some((g) => g.name === "gpu" && g.count > 0) || [spec.gpus, spec.gpusPerNode, spec.gpusPerTask, spec.gpusPerSocket].some((t) => !!t);
  for (const g of spec.gresPerNode) {
    if (g.name === "gpu") continue;
    if (wholeGpus && SHARING_GRES.has(g.name.toLowerCase()) && gresRequestCount(g) > 0) return `Invalid generic resource (gres) specification`;
    const count = gresRequestCount(g);
    // a count of 0 asks nothing and is not checked against GresTypes (oracle 22.05: --gres=mic:0 is accepted, TresPerNode=gres:mic:0)
    if (count === 0) continue;
    if (!(config.gresTypes ?? []).includes(g.name.toLowerCase())) return `Invalid generic resource (gres) specification`;
    if (count > 0) out.push({ name: g.name.toLowerCase(), type: g.type, count });
  }
  return out;
}

/**
 * --ntasks-per-gpu=N: with -n, the job gets ceil(n/N) GPUs (per job); with a GPU
 * count instead, it runs N tasks per GPU. Returns the task count.
 */
function applyTasksPerGpu(spec: JobSpecP, gpu: GpuPart, ntasks: number, nodes: number): number {
  const perGpu = spec.ntasksPerGpu;
  const gpus = gpu.gpusTotal + gpu.gpusPerNode * nodes;
  if (spec.ntasks === 0 && gpus > 0) return perGpu * gpus;
  if (gpus === 0) {
    const wanted = Math.ceil(ntasks / perGpu);
    if (nodes <= 1) gpu.gpusPerNode = wanted;
    else gpu.gpusTotal = wanted;
  }
  return ntasks;
}

/** Memory a node share needs for `cpus` CPUs and `gpus` GPUs, given the node's memory. */
export function memForShare(req: ResourceRequest, cpus: number, gpus: number, nodeMemMiB: number): number {
  switch (req.mem.kind) {
    case "node":
      return req.mem.mib;
    case "cpu":
      return req.mem.mib * cpus;
    case "gpu":
      return req.mem.mib * gpus;
    case "all":
      return nodeMemMiB;
  }
}

/** Typed count text "[type:]N" → "gres/gpu[:type]:N". */
/** A --gpus* text as TRES: "gres/gpu:mi300x:2"; a zero count is shown too, a type alone without a count (oracle 22.05). */
function gresTres(text: string): string {
  const tc = parseTypedCount(text);
  if (tc === undefined) return "";
  return `gres/gpu${tc.type ? `:${tc.type}` : ""}${tc.countOmitted === true ? "" : `:${tc.count}`}`;
}

/**
 * TRES per node and per job as Slurm records them: --gres and --gpus-per-node
 * are per node, --gpus is per job (never shown per node, even on one node).
 */
export function gpuTresTexts(spec: JobSpecP): { perNode: string; perJob: string; perSocket: string } {
  const gres = spec.gresPerNode.find((g) => g.name === "gpu");
  const gpuPerNode = spec.gpusPerNode
    ? gresTres(spec.gpusPerNode)
    : gres !== undefined
      ? `gres/gpu${gres.type ? `:${gres.type}` : ""}${gres.countOmitted === true ? "" : `:${gres.count}`}`
      : "";
  // The counted GRES follow the GPUs, in the order asked: "gres/gpu:2,gres/nvme:1"; a count of 0
  // is echoed too (oracle 22.05: --gres=mic:0 shows TresPerNode=gres:mic:0, --gres=gpu:0 gres:gpu:0).
  const generic = gresPerNodeText(
    spec.gresPerNode.filter((g) => g.name !== "gpu").map((g) => ({ name: g.name.toLowerCase(), type: g.type, count: gresRequestCount(g), ...(g.countOmitted === true ? { countOmitted: true } : {}) })),
  );
  const perNode = [gpuPerNode, generic].filter((t) => t !== "").join(",");
  // --gpus-per-socket as asked, a count of 0 too (oracle 22.05: TresPerSocket=gres:gpu:0, gres:gpu:mi300x)
  return { perNode, perJob: spec.gpus ? gresTres(spec.gpus) : "", perSocket: spec.gpusPerSocket ? gresTres(spec.gpusPerSocket) : "" };
}

/** Whether a job with --switches=N@time has waited long enough to take any switch count. */
export function switchWaitOver(spec: JobSpecP, eligibleSince: number, now: number): boolean {
  return spec.reqSwitch === 0 || now - eligibleSince >= spec.wait4switchSec;
}

/** TRES per task as Slurm records it (and exports as SLURM_TRES_PER_TASK): "cpu=4,gres/gpu:mi300x=2"; "" when none given. */
export function tresPerTaskText(spec: JobSpecP): string {
  const parts: string[] = [];
  if (spec.cpusPerTask > 0) parts.push(`cpu=${spec.cpusPerTask}`);
  const tc = spec.gpusPerTask ? parseTypedCount(spec.gpusPerTask) : undefined;
  // a count of 0 is recorded too (oracle 22.05: --gpus-per-task=0 shows TresPerTask=gres:gpu:0; soak seed 8113)
  if (tc !== undefined) parts.push(tc.type ? `gres/gpu:${tc.type}=${tc.count}` : `gres/gpu=${tc.count}`);
  return parts.join(",");
}

/**
 * The request's layout shape (job-layout.ts) with the request's own counts, which callers
 * may have narrowed (one task, a fixed node count). A request built without one reads as
 * an explicit -N nodesMin-nodesMax and -n ntasks.
 */
export function layoutOf(req: ResourceRequest): LayoutShape {
  const base: LayoutShape = req.layout ?? {
    nodesGiven: true, nodesMin: req.nodesMin, nodesMax: req.nodesMax, ntasks: req.ntasks, ntasksGiven: true,
    cpusPerTask: req.cpusPerTask, ntasksPerNode: req.ntasksPerNode, overcommit: false, exclusive: req.exclusive,
  };
  return {
    ...base, ntasks: req.ntasks, nodesMin: req.nodesMin, nodesMax: base.nodesGiven ? req.nodesMax : base.nodesMax,
    cpusPerTask: req.cpusPerTask, ntasksPerNode: req.ntasksPerNode, exclusive: req.exclusive,
  };
}
