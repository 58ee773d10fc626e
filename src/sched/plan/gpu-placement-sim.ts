/**
 * @module sched/plan/gpu-placement-sim
 * A seeded placement simulation for bench/placement.ts and its test: a GPU
 * cluster with declared links and a switch tree, a generated mixed trace (1-8
 * GPU jobs and whole-node multi-node gangs), and a loop that starts jobs in
 * submission order (any job that fits starts) with a pluggable placer. It scores
 * each placement against the best one available at that moment:
 * - clique: a multi-GPU job got a set whose worst link equals the best any node offered;
 * - switch: a multi-node job sits under a switch of the lowest level any switch offered.
 * - type: a typed job (MIG profile, whole-GPU model) got only GPUs of its type
 *   (simMigCluster / simMigTrace: MIG instances beside whole GPUs).
 * Pure and deterministic: time is a step counter, the clock for timings is passed in.
 */
import { bestGpuSet } from "../../devices/best-gpu-set.ts";
import { createRng } from "../../lib/rng.ts";
import { parseTopologyConf, type NetworkTopology } from "../../compat/conf/topology-conf.ts";
import { fitJob, type NodeView } from "./fit-node.ts";
import type { ResourceRequest } from "./request.ts";
import { declaredLinks, parseGpuTopology, topologyFromLinks } from "../../devices/gpu-topology.ts";
import { lowestSwitchLevel } from "./topology.ts";
import { parseSocketCpus } from "../../compat/gpu-locality.ts";
import { gpuPool } from "../../compat/gpu-types.ts";
import type { NodeAllocState } from "../model/state-types.ts";

export interface SimJob {
  id: number;
  submitStep: number;
  durationSteps: number;
  /** Nodes (whole, exclusive) for gangs; 1 for single-node jobs. */
  nodes: number;
  gpus: number;
  /** gres type asked for ("" or absent = any). */
  type?: string;
}

export interface SimCluster {
  views: NodeView[];
  topology: NetworkTopology;
  /** CPUs each GPU job asks per GPU (--cpus-per-gpu); 0 = one CPU per job. */
  cpusPerGpu: number;
}

export type Placer = (req: ResourceRequest, views: NodeView[], topology: NetworkTopology) => NodeAllocState[] | undefined;

export interface SimResult {
  placed: number;
  multiGpuJobs: number;
  cliqueOptimal: number;
  multiNodeJobs: number;
  switchOptimal: number;
  placementCalls: number;
  placementUs: number;
  /** Single-node GPU jobs placed on nodes with a socket layout, and those whose CPUs all sit on their GPUs' sockets. */
  socketScored: number;
  numaLocal: number;
  /** Typed jobs placed, and those that got only GPUs of their type. */
  typedJobs: number;
  typeExact: number;
  meanWaitSteps: number;
}

const GPUS_PER_NODE = 8;
const SIM_STEPS_MAX = 100_000;

/**
 * `nodes` nodes of 8 GPUs, alternating fully connected and NVLink-pair links; leaves of 4 nodes, spines of 4 leaves, one top.
 * With `sockets` = 2, each node has two sockets of 32 CPUs, GPUs 0-3 on the first, and jobs ask 8 CPUs per GPU.
 */
export function simCluster(nodes: number, sockets = 1): SimCluster {
  const full = linkMatrixOf("xgmi");
  const pairs = linkMatrixOf("hives:4");
  const views: NodeView[] = Array.from({ length: nodes }, (_, i) => ({
    name: `n${i + 1}`, cpus: 64, memMiB: 512_000, gpuCount: GPUS_PER_NODE, gpuModel: "", features: [], freeCpus: 64,
    freeMemMiB: 512_000, freeGpus: [0, 1, 2, 3, 4, 5, 6, 7], idle: true, usable: true, gpuLinks: i % 2 === 0 ? full : pairs,
    ...(sockets === 2 ? { sockets: { count: 2, gpuSocket: [0, 0, 0, 0, 1, 1, 1, 1], freeCpus: [32, 32] } } : {}),
  }));
  const lines: string[] = [];
  const leaves = Math.ceil(nodes / 4);
  for (let s = 0; s < leaves; s++) lines.push(`SwitchName=leaf${s + 1} Nodes=n[${s * 4 + 1}-${Math.min(nodes, s * 4 + 4)}]`);
  const spines = Math.ceil(leaves / 4);
  for (let s = 0; s < spines; s++) lines.push(`SwitchName=spine${s + 1} Switches=leaf[${s * 4 + 1}-${Math.min(leaves, s * 4 + 4)}]`);
  lines.push(`SwitchName=top Switches=spine[1-${spines}]`);
  const topology = parseTopologyConf(lines.join("\n"));
  if (!topology.ok) throw new Error(topology.error.message);
  return { views, topology: topology.value, cpusPerGpu: sockets === 2 ? 8 : 0 };
}

/** Type of each unit on a MIG node: GPU 0 as 1g.10gb x 3 + 3g.40gb, GPUs 1-7 whole. */
const MIG_NODE_TYPES = ["1g.10gb", "1g.10gb", "1g.10gb", "3g.40gb", ...Array<string>(7).fill("h100")];

/**
 * `nodes` H100 nodes on one leaf-switch tree: even ones with GPU 0 split by MIG (11 units, MIG units
 * without fabric links), odd ones 8 whole GPUs; whole GPUs all NVLink-connected.
 */
export function simMigCluster(nodes: number): SimCluster {
  const base = simCluster(nodes);
  const whole = linkMatrixOf("xgmi");
  const n = MIG_NODE_TYPES.length;
  const rows = MIG_NODE_TYPES.map((a, i) => MIG_NODE_TYPES.map((b, j) => (i === j ? -1 : a === "h100" && b === "h100" ? 599 : 0)));
  const mig = parseGpuTopology(rows.map((r) => r.join(",")).join(";"), n);
  const views = base.views.map((v, i): NodeView => (i % 2 === 0
    ? { ...v, gpuCount: n, gpuModel: MIG_NODE_TYPES[0]!, freeGpus: MIG_NODE_TYPES.map((_, g) => g), gpuLinks: mig, gpuTypes: [...MIG_NODE_TYPES] }
    : { ...v, gpuModel: "h100", gpuLinks: whole }));
  return { ...base, views };
}

/** Single-node jobs: MIG profiles (one instance), whole H100s (1-4), untyped (1-2). */
export function simMigTrace(seed: number, jobs: number, arrivalsPerStep: number): SimJob[] {
  const rng = createRng(seed);
  const out: SimJob[] = [];
  for (let id = 1; id <= jobs; id++) {
    const r = rng.next();
    const [type, gpus] = r < 0.3 ? ["1g.10gb", 1] : r < 0.4 ? ["3g.40gb", 1] : r < 0.8 ? ["h100", rng.pick([1, 2, 2, 4])] : ["", rng.pick([1, 2])];
    out.push({ id, submitStep: Math.floor(id / arrivalsPerStep), durationSteps: rng.int(2, 40), nodes: 1, gpus, type });
  }
  return out;
}

function linkMatrixOf(shape: string) {
  const rows = declaredLinks(shape, GPUS_PER_NODE);
  if (typeof rows === "string") throw new Error(rows);
  return parseGpuTopology(topologyFromLinks(rows), GPUS_PER_NODE);
}

/** A mixed trace: mostly small GPU jobs, some whole nodes, about one in ten a 2-4 node gang. */
export function simTrace(seed: number, jobs: number, arrivalsPerStep: number): SimJob[] {
  const rng = createRng(seed);
  const out: SimJob[] = [];
  for (let id = 1; id <= jobs; id++) {
    const r = rng.next();
    const gang = r < 0.1;
    const gpus = gang ? GPUS_PER_NODE : rng.pick([1, 1, 1, 2, 2, 2, 3, 4, 4, 6, 8]);
    out.push({ id, submitStep: Math.floor(id / arrivalsPerStep), durationSteps: rng.int(2, 40), nodes: gang ? rng.int(2, 4) : 1, gpus });
  }
  return out;
}

export function requestOf(job: SimJob, cpusPerGpu = 0): ResourceRequest {
  return {
    ...(cpusPerGpu > 0 && job.nodes === 1 ? { cpusPerGpu } : {}),
    nodesMin: job.nodes, nodesMax: job.nodes, ntasks: job.nodes, ntasksPerNode: 0, cpusPerTask: 1, mem: { kind: "node", mib: 1000 },
    gpusPerNode: job.gpus, gpusTotal: 0, gpusPerTask: 0, gpuType: job.type ?? "", exclusive: job.nodes > 1, nodelist: [], exclude: [], features: [],
  };
}

/** Spur's placement: topology-aware fitJob. */
export const spurPlacer: Placer = (req, views, topology) => fitJob(req, views, "now", topology);

/** Count-only first fit: the first node in order with room, its lowest free GPU indices; gangs on the first idle nodes. */
export const firstFitPlacer: Placer = (req, views) => {
  if (req.nodesMin > 1) return fitJob(req, views.map((v) => ({ ...v, gpuLinks: undefined })), "now");
  const memMib = req.mem.kind === "node" ? req.mem.mib : 0;
  for (const v of views) {
    if (!v.usable || v.freeGpus.length < req.gpusPerNode || v.freeCpus < req.ntasks * req.cpusPerTask || v.freeMemMiB < memMib) continue;
    return [{ node: v.name, cpus: req.ntasks * req.cpusPerTask, memMib, gpuIndices: v.freeGpus.slice(0, req.gpusPerNode), tasks: req.ntasks }];
  }
  return undefined;
};

/** Run the trace with `placer`; `clockUs` times the placement calls only. */
export function runPlacementSim(cluster: SimCluster, trace: SimJob[], placer: Placer, clockUs: () => number): SimResult {
  const views = cluster.views.map((v) => ({
    ...v, freeGpus: [...v.freeGpus], ...(v.sockets ? { sockets: { ...v.sockets, freeCpus: [...(v.sockets.freeCpus ?? [])] } } : {}),
  }));
  const byName = new Map(views.map((v) => [v.name, v] as const));
  const running: { end: number; alloc: NodeAllocState[] }[] = [];
  const queue: SimJob[] = [];
  const res: SimResult = {
    placed: 0, multiGpuJobs: 0, cliqueOptimal: 0, multiNodeJobs: 0, switchOptimal: 0, placementCalls: 0, placementUs: 0, socketScored: 0, numaLocal: 0, typedJobs: 0, typeExact: 0, meanWaitSteps: 0,
  };
  let next = 0;
  let waitSum = 0;
  for (let step = 0; step < SIM_STEPS_MAX && (next < trace.length || queue.length > 0 || running.length > 0); step++) {
    for (let i = running.length - 1; i >= 0; i--) {
      if (running[i]!.end > step) continue;
      for (const share of running[i]!.alloc) release(byName.get(share.node)!, share);
      running.splice(i, 1);
    }
    while (next < trace.length && trace[next]!.submitStep <= step) queue.push(trace[next++]!);
    for (let i = 0; i < queue.length; ) {
      const job = queue[i]!;
      const req = requestOf(job, cluster.cpusPerGpu);
      const best = job.nodes > 1 ? bestSwitchLevel(views, cluster.topology, job.nodes) : bestCliqueQuality(views, job.gpus, job.type ?? "");
      const t0 = clockUs();
      const alloc = placer(req, views, cluster.topology);
      res.placementUs += clockUs() - t0;
      res.placementCalls++;
      if (alloc === undefined) {
        i++;
        continue;
      }
      score(res, job, alloc, best, views, cluster.topology);
      for (const share of alloc) charge(byName.get(share.node)!, share);
      running.push({ end: step + job.durationSteps, alloc });
      waitSum += step - job.submitStep;
      res.placed++;
      queue.splice(i, 1);
    }
  }
  res.meanWaitSteps = res.placed > 0 ? waitSum / res.placed : 0;
  return res;
}

function score(res: SimResult, job: SimJob, alloc: NodeAllocState[], best: number, views: NodeView[], topology: NetworkTopology): void {
  scoreSockets(res, job, alloc, views);
  if (job.type) {
    res.typedJobs++;
    const v = views.find((x) => x.name === alloc[0]!.node)!;
    if (alloc[0]!.gpuIndices.every((g) => (v.gpuTypes?.[g] ?? v.gpuModel) === job.type)) res.typeExact++;
  }
  if (job.nodes > 1) {
    res.multiNodeJobs++;
    if (lowestSwitchLevel(topology, alloc.map((a) => a.node)) <= best) res.switchOptimal++;
    return;
  }
  if (job.gpus < 2) return;
  res.multiGpuJobs++;
  const view = views.find((v) => v.name === alloc[0]!.node)!;
  const got = bestGpuSet(view.gpuLinks!, alloc[0]!.gpuIndices, job.gpus);
  if ((got?.minQuality ?? 0) >= best) res.cliqueOptimal++;
}

/** A single-node GPU job is NUMA-local when every socket it has CPUs on holds one of its GPUs. */
function scoreSockets(res: SimResult, job: SimJob, alloc: NodeAllocState[], views: NodeView[]): void {
  const share = alloc[0];
  const layout = views.find((v) => v.name === share?.node)?.sockets;
  if (job.nodes > 1 || job.gpus === 0 || share === undefined || layout === undefined) return;
  res.socketScored++;
  const counts = parseSocketCpus(share.socketCpus);
  if (counts.every((c, s) => c === 0 || share.gpuIndices.some((g) => layout.gpuSocket[g] === s))) res.numaLocal++;
}

/** Best worst-link any node's free GPUs offer for `count` GPUs (0 when none fits). */
function bestCliqueQuality(views: NodeView[], count: number, type: string): number {
  let best = 0;
  for (const v of views) {
    const pool = gpuPool(v, type, true);
    if (!v.usable || pool.length < count || v.gpuLinks === undefined) continue;
    best = Math.max(best, bestGpuSet(v.gpuLinks, pool, count)?.minQuality ?? 0);
  }
  return best;
}

/** Lowest switch level with `nodes` idle nodes under it (Infinity when none). */
function bestSwitchLevel(views: NodeView[], topology: NetworkTopology, nodes: number): number {
  const idle = new Set(views.filter((v) => v.usable && v.idle).map((v) => v.name));
  let best = Number.POSITIVE_INFINITY;
  for (const g of topology.groups) if (g.nodes.filter((n) => idle.has(n)).length >= nodes) best = Math.min(best, g.level);
  return best;
}

function charge(v: NodeView, share: NodeAllocState): void {
  v.freeCpus -= share.cpus;
  v.freeMemMiB -= share.memMib;
  v.freeGpus = v.freeGpus.filter((g) => !share.gpuIndices.includes(g));
  moveSocketCpus(v, share, -1);
  v.idle = false;
}

function release(v: NodeView, share: NodeAllocState): void {
  v.freeCpus += share.cpus;
  v.freeMemMiB += share.memMib;
  v.freeGpus = [...v.freeGpus, ...share.gpuIndices].sort((a, b) => a - b);
  moveSocketCpus(v, share, 1);
  v.idle = v.freeCpus === v.cpus && v.freeGpus.length === v.gpuCount;
}

/** Per-socket free CPUs follow a share's charge (-1) or release (+1). */
function moveSocketCpus(v: NodeView, share: NodeAllocState, sign: 1 | -1): void {
  const free = v.sockets?.freeCpus;
  if (free === undefined) return;
  parseSocketCpus(share.socketCpus).forEach((c, s) => {
    free[s] = (free[s] ?? 0) + sign * c;
  });
}
