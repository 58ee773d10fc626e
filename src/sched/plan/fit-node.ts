/**
 * @module sched/plan/fit-node
 * Places one job's request on a set of nodes: CPUs, memory and GPU indices per
 * node, tasks distributed block-wise. The same function answers "does it fit
 * now" (free resources) and "could it ever fit" (total resources), so a
 * submission that can never run is rejected with Slurm's "Requested node
 * configuration is not available". Node choice is topology-aware:
 * - a single-node job goes to the node whose free GPUs give the best-connected
 *   set (gpu-clique), then to the node it fills best (best fit, as cons_tres: fewest
 *   GPUs, then fewest CPUs left; whole free nodes and fabrics are kept for the jobs
 *   that need them), then in node order;
 * - a multi-node job goes under the lowest switch (or block) of topology.conf that
 *   can hold it, the best-fitting one at that level (topology.ts);
 * - with --switches=N, a placement over more than N leaf switches waits until the
 *   job has waited N@time (ResourceRequest.switchWaitOver, set by the caller);
 * - required nodes (-w) are taken or the job does not start (reason Resources).
 * To place a job at a future time (backfill), pass views whose free resources are
 * those expected then (see `withReleased`).
 */
import type { LinkMatrix } from "../../devices/inventory.ts";
import type { NetworkTopology } from "../../compat/conf/topology-conf.ts";
import { layoutOf, memForShare, type ResourceRequest } from "./request.ts";
import { NODES_UNBOUNDED, nodeFits, nodesTarget, shareCpus, taskRoom as layoutTaskRoom, type LayoutNode, type LayoutShape } from "../../compat/job-layout.ts";
import { pickGpus } from "./gpu-clique.ts";
import { parseSocketCpus, socketCpusText } from "../../compat/gpu-locality.ts";
import { placeOnSockets, type SocketLayout } from "./gpu-sockets.ts";
import { fitUnderSwitches, leafSwitchCount } from "./topology.ts";
import { gpuPool } from "../../compat/gpu-types.ts";
import { assert } from "../../lib/assert.ts";
import { formatGresItems, parseGresItems, type GresItem } from "../../compat/gres-generic.ts";
import { placeSharing, releaseGres, releaseSharing, sharingFitsOneGpu, takeGres } from "./gres-fit.ts";
import type { NodeAllocState } from "../model/state-types.ts";
import { userMayUse, type NodeUsers } from "./user-exclusive.ts";

export interface NodeView {
  name: string;
  cpus: number;
  memMiB: number;
  gpuCount: number;
  gpuModel: string;
  features: string[];
  freeCpus: number;
  freeMemMiB: number;
  freeGpus: number[];
  /** No job holds anything on it (needed for --exclusive). */
  idle: boolean;
  /** Accepts new work (not down/drained/unregistered). */
  usable: boolean;
  /** GPU link qualities (gpu-topology.ts); absent = all pairs equal. */
  gpuLinks?: LinkMatrix | undefined;
  /** Hardware threads per core (absent = 1): --hint=nomultithread allocates whole cores. */
  threadsPerCore?: number | undefined;
  /** Sockets and cores per socket as configured (absent = 1 socket, any cores): --ntasks-per-socket, --cores-per-socket. */
  socketCount?: number | undefined;
  coresPerSocket?: number | undefined;
  /** Slurm's node Weight (lower is allocated first); absent = 1. */
  weight?: number;
  /** Socket layout and GPU locality (gpu-sockets.ts); absent = CPUs counted per node only. */
  sockets?: SocketLayout | undefined;
  /** Type of each GPU index when the node has several (gpu-types.ts); absent = all `gpuModel`. */
  gpuTypes?: string[] | undefined;
  /** TmpDisk (MiB) as configured (--tmp); absent = 0. */
  tmpDiskMib?: number | undefined;
  /** Generic GRES (not GPUs) as configured and as free now (gres-fit.ts); absent = none. */
  gresTotal?: GresItem[] | undefined;
  gresFree?: GresItem[] | undefined;
  /** Units of each sharing GRES (shard, mps) held per GPU index now; GPUs in it are not in freeGpus. */
  sharingUsed?: Map<string, Map<number, number>> | undefined;
  /** Position in the cluster's node order (--contiguous); absent = the position in the list given. */
  order?: number | undefined;
  /** Who runs jobs on it now, for --exclusive=user (user-exclusive.ts); absent = nobody. */
  users?: NodeUsers | undefined;
}

export type FitMode = "now" | "ever";

export interface Capacity {
  node: NodeView;
  tasks: number;
}

export function fitJob(request: ResourceRequest, nodes: NodeView[], mode: FitMode, topology?: NetworkTopology): NodeAllocState[] | undefined {
  const req = request.spreadJob === true ? spreadRequest(request, nodes) : request;
  // --prefer: first as if the preferred features were required; a soft constraint never keeps a job from starting (Slurm tries twice too)
  if (mode === "now" && req.prefer !== undefined && req.prefer.length > 0) {
    const { prefer, ...hard } = req;
    return fitRequired({ ...hard, features: [...hard.features, ...prefer] }, nodes, mode, topology) ?? fitRequired(hard, nodes, mode, topology);
  }
  return fitRequired(req, nodes, mode, topology);
}

/** fitJob for the hard constraints only. */
function fitRequired(req: ResourceRequest, nodes: NodeView[], mode: FitMode, topology?: NetworkTopology): NodeAllocState[] | undefined {
  const candidates = orderCandidates(req, nodes, mode);
  if (candidates === undefined) return undefined;
  const target = targetOf(req);
  const nodesWanted = Math.max(target.wanted, req.nodesMin, req.nodelist.length);
  if (mode === "now" && nodesWanted <= 1 && req.nodelist.length === 0) {
    const single = bestSingleNode(req, candidates);
    if (single !== undefined) return [single];
    // A one-node job that fits no single node fits nowhere: skip the second scan.
    if (Math.min(req.nodesMax, target.most) <= 1) return undefined;
  }
  if (req.contiguous && Math.max(nodesWanted, req.nodesMin) > 1) return fitContiguous(req, candidates, mode);
  const flat = fitFlat(req, candidates, mode);
  if (flat === undefined || flat.length <= 1 || mode !== "now" || topology === undefined) return flat;
  const placed = req.nodelist.length > 0 ? flat : (fitUnderSwitches(topology, candidates, (subset) => fitFlat(req, subset, mode)) ?? flat);
  // --switches=N: more leaf switches than asked keeps the job waiting until its wait is over (Slurm's rule).
  const switchesMax = req.switchesMax ?? 0;
  if (switchesMax > 0 && !req.switchWaitOver && leafSwitchCount(topology, placed.map((a) => a.node)) > switchesMax) return undefined;
  return placed;
}

/** fitInOrder, or for a job-wide GPU count whose node count may grow, the fewest nodes that hold it. */
function fitFlat(req: ResourceRequest, candidates: Capacity[], mode: FitMode): NodeAllocState[] | undefined {
  return req.gpusTotal > 0 && req.gpusPerNode === 0 ? fitFewestNodes(req, candidates, mode) : fitInOrder(req, candidates, mode);
}

/**
 * --gpus=N (a count for the whole job) with a node count left free (no -N, or an -N range): the
 * fewest nodes, from the least it may have, that hold N GPUs with at least one each (oracle 22.05 on
 * two 8-GPU nodes: --gpus=9 runs on 2 nodes, -N1-2 --gpus=4 on 1, -n1 --gpus=9 nowhere, --gpus=17
 * nowhere); without -n each node runs a task (--gpus=9 -c4: NumTasks=2, NumCPUs=8).
 */
function fitFewestNodes(req: ResourceRequest, candidates: Capacity[], mode: FitMode): NodeAllocState[] | undefined {
  const layout = layoutOf(req);
  const least = Math.max(1, req.nodesMin, req.nodelist.length);
  const mostByTasks = layout.ntasksGiven && !layout.overcommit ? req.ntasks : NODES_UNBOUNDED;
  const most = Math.min(Math.max(least, Math.min(req.nodesMax, targetOf(req).most)), mostByTasks, candidates.length, req.gpusTotal);
  for (let count = least; count <= most; count++) {
    const placed = fitInOrder(withNodeCount(req, layout, count), candidates, mode);
    if (placed !== undefined) return placed;
  }
  return undefined;
}

/** The request on exactly `count` nodes; without -n, a task (or a --ntasks-per-node) on each. */
function withNodeCount(req: ResourceRequest, layout: LayoutShape, count: number): ResourceRequest {
  const ntasks = layout.ntasksGiven ? req.ntasks : Math.max(req.ntasks, count * Math.max(1, req.ntasksPerNode));
  return { ...req, nodesMin: count, nodesMax: count, ntasks, layout: { ...layout, nodesGiven: true, nodesMin: count, nodesMax: count, ntasks } };
}

/** How many nodes the job wants and may have: --use-min-nodes wants a range's minimum (oracle 22.05: -N 1-3 -n1 on 1 node, not 3). */
function targetOf(req: ResourceRequest): { wanted: number; most: number } {
  const target = nodesTarget(layoutOf(req));
  return req.useMinNodes === true ? { wanted: Math.min(target.wanted, Math.max(1, req.nodesMin)), most: target.most } : target;
}

/**
 * --spread-job: as many nodes as there are tasks, within -N's maximum and the nodes that could
 * ever hold a task (Slurm 22.05 on 4 nodes: -n 4 runs on 4 nodes, -n 8 waits for all 4 as
 * NumNodes=4-4, -n 4 -N 1-2 takes 2); busy nodes are waited for, not skipped.
 */
function spreadRequest(req: ResourceRequest, nodes: NodeView[]): ResourceRequest {
  const able = nodes.filter((n) => taskRoom(req, n, "ever") > 0).length;
  const count = Math.max(req.nodesMin, Math.min(req.ntasks, req.nodesMax, able));
  assert(count >= req.nodesMin, "spread keeps the minimum");
  return { ...req, nodesMin: count, nodesMax: count, layout: { ...layoutOf(req), nodesGiven: true, nodesMin: count, nodesMax: count } };
}

/**
 * --contiguous: the first run of consecutive nodes (cluster order) that holds the job, filled
 * in order; a placement that skips a node inside its run is refused.
 */
function fitContiguous(req: ResourceRequest, candidates: Capacity[], mode: FitMode): NodeAllocState[] | undefined {
  const position = (c: Capacity, i: number): number => c.node.order ?? i;
  const sorted = candidates.map((c, i) => ({ c, at: position(c, i) })).sort((a, b) => a.at - b.at);
  for (let start = 0; start < sorted.length; start++) {
    let end = start + 1;
    while (end < sorted.length && (sorted[end]?.at ?? 0) === (sorted[end - 1]?.at ?? 0) + 1) end++;
    const run = sorted.slice(start, end);
    const placed = fillInOrder(req, run.map((r) => r.c), mode);
    if (placed === undefined || placed === TOO_MANY_NODES) continue;
    const at = new Map(run.map((r) => [r.c.node.name, r.at]));
    const used = placed.map((a) => at.get(a.node) ?? -1).sort((a, b) => a - b);
    if (used.every((p, k) => k === 0 || p === (used[k - 1] ?? 0) + 1)) return placed;
  }
  return undefined;
}

/** Free resources as they will be once `shares` end: the view backfill places a job in at a future time. */
export function withReleased(views: readonly NodeView[], shares: readonly NodeAllocState[]): NodeView[] {
  return views.map((v) => {
    const mine = shares.filter((s) => s.node === v.name);
    if (mine.length === 0) return { ...v, freeGpus: [...v.freeGpus] };
    const gpus = new Set(v.freeGpus);
    for (const s of mine) for (const g of s.gpuIndices) gpus.add(g);
    const sharing = releaseSharing(v.sharingUsed, mine.map((s) => parseGresItems(s.gres ?? "")));
    for (const g of sharing.freed) gpus.add(g);
    const perSocket = v.sockets?.freeCpus?.map((f, k) => f + mine.reduce((n, s) => n + (parseSocketCpus(s.socketCpus)[k] ?? 0), 0));
    return {
      ...v,
      ...(v.sockets && perSocket ? { sockets: { ...v.sockets, freeCpus: perSocket } } : {}),
      freeCpus: Math.min(v.cpus, v.freeCpus + mine.reduce((n, s) => n + s.cpus, 0)),
      freeMemMiB: Math.min(v.memMiB, v.freeMemMiB + mine.reduce((n, s) => n + s.memMib, 0)),
      freeGpus: [...gpus].sort((a, b) => a - b),
      ...(v.gresFree && v.gresTotal ? { gresFree: releaseGres(v.gresFree, v.gresTotal, mine.map((s) => parseGresItems(s.gres ?? ""))) } : {}),
      ...(v.sharingUsed ? { sharingUsed: sharing.used } : {}),
    };
  });
}


const wantsGpus = (req: ResourceRequest): boolean => req.gpusPerNode > 0 || req.gpusTotal > 0 || req.gpusPerTask > 0 || (req.gpusPerSocket ?? 0) > 0;

/**
 * Block distribution over candidates in order: the fewest nodes, required nodes first.
 * Filling in order lets a partly free early node push a job past its node
 * count (4 tasks on -N1: 2 on n1 + 2 on n2) although a later node could hold
 * it whole; then the nodes that can take an even share are tried alone.
 */
function fitInOrder(req: ResourceRequest, candidates: Capacity[], mode: FitMode): NodeAllocState[] | undefined {
  const greedy = fillInOrder(req, candidates, mode);
  if (greedy !== TOO_MANY_NODES) return greedy;
  const nodesMax = Math.max(req.nodesMax, req.nodesMin, req.nodelist.length);
  const evenShare = Math.ceil(req.ntasks / nodesMax);
  const roomy = candidates.filter((c) => c.tasks >= evenShare || req.nodelist.includes(c.node.name));
  const retry = roomy.length > 0 && roomy.length < candidates.length ? fillInOrder(req, roomy, mode) : undefined;
  return retry === TOO_MANY_NODES ? undefined : retry;
}

/** fillInOrder ran out of nodes the job may use before placing every task (the case worth a retry). */
const TOO_MANY_NODES = "too many nodes";

function fillInOrder(req: ResourceRequest, candidates: Capacity[], mode: FitMode): NodeAllocState[] | typeof TOO_MANY_NODES | undefined {
  const nodesNeeded = Math.max(req.nodesMin, req.nodelist.length);
  // a node range takes as many nodes as it may (its top when free), never fewer than its minimum
  const target = targetOf(req);
  const nodesWanted = Math.max(nodesNeeded, Math.min(target.wanted, candidates.length));
  const nodesMax = Math.max(Math.min(req.nodesMax, target.most), nodesNeeded);
  const gpusPerNode = gpusNeededPerNode(req, nodesWanted);
  // --gpus=N over several nodes: N in all, each node in order taking all it has free but one GPU for
  // each node still owed (oracle 22.05 on 8-GPU nodes, -N2: --gpus=9 is 8 + 1, --gpus=4 3 + 1, --gpus=2 1 + 1)
  const spreadTotal = req.gpusPerNode === 0 && req.gpusTotal > 0 && nodesWanted > 1;
  let gpusLeft = spreadTotal ? req.gpusTotal : 0;
  const chosen: NodeAllocState[] = [];
  let remaining = req.ntasks;
  for (const { node, tasks } of candidates) {
    const mustTake = req.nodelist.includes(node.name);
    if (remaining <= 0 && chosen.length >= nodesWanted && !mustTake) break;
    // Required nodes come first, so another node here can only overrun the node count.
    if (chosen.length >= nodesMax && !mustTake) return TOO_MANY_NODES;
    const reserveForOthers = Math.max(0, nodesWanted - chosen.length - 1);
    // keep a task for each node still owed; a range's extra nodes (tasks all placed) hold one task's CPUs
    let take = remaining > 0 ? Math.min(tasks, remaining, Math.max(1, remaining - reserveForOthers)) : 0;
    // --spread-job: an even share on each node still owed (8 tasks on 4 nodes: 2 each, not 4+2+1+1)
    if (req.spreadJob === true && take > 0) take = Math.min(take, Math.ceil(remaining / Math.max(1, nodesWanted - chosen.length)));
    const gpusHere = spreadTotal ? Math.min(gpuPool(node, req.gpuType, mode === "now").length, gpusLeft - reserveForOthers) : gpusPerNode;
    if (spreadTotal && gpusHere <= 0) {
      if (mustTake) return undefined;
      continue;
    }
    const share = makeShare(req, node, take, gpusHere, mode);
    if (share === undefined) {
      if (mustTake) return undefined;
      continue;
    }
    chosen.push(share.alloc);
    remaining -= take;
    if (spreadTotal) gpusLeft -= share.alloc.gpuIndices.length;
  }
  if (chosen.length > nodesMax) return TOO_MANY_NODES;
  if (remaining > 0 || gpusLeft > 0 || chosen.length < nodesNeeded) return undefined;
  assert(new Set(chosen.map((a) => a.node)).size === chosen.length, "one share per node");
  return chosen;
}

/**
 * The whole job on one node, the best of the candidates by: best-connected GPU set,
 * then fewest GPUs left (GPU jobs: whole free fabrics are kept for the jobs that need
 * them), then the lowest node Weight, then fewest CPUs left (cons_tres's best fit keeps
 * emptier nodes for bigger jobs), then node order.
 */
function bestSingleNode(req: ResourceRequest, candidates: Capacity[]): NodeAllocState | undefined {
  const gpusPerNode = gpusNeededPerNode(req, 1);
  let best: { share: NodeAllocState; key: number[] } | undefined;
  const gpusWanted = req.gpusPerSocket ? req.gpusPerSocket * Math.max(1, req.socketsPerNode ?? 0) : req.gpusPerTask > 0 ? req.gpusPerTask * req.ntasks : gpusPerNode;
  const gpuJob = gpusWanted > 0;
  let qualityMax = -1; // computed once a first share is found (most failing searches never need it)
  for (const { node, tasks } of candidates) {
    const free = gpuPool(node, req.gpuType, true).length;
    if (tasks < req.ntasks || free < gpusWanted) continue;
    // Once the best links are in hand, only a tighter fit can win: skip the GPU search otherwise.
    if (gpuJob && best !== undefined && best.key[0] === -qualityMax && free - gpusWanted > (best.key[1] ?? 0)) continue;
    const share = makeShare(req, node, req.ntasks, gpusPerNode, "now");
    if (share === undefined) continue;
    const gpusLeft = gpuJob ? free - share.alloc.gpuIndices.length : 0;
    const key = [-share.quality, gpusLeft, node.weight ?? 1, node.freeCpus - share.alloc.cpus];
    if (best === undefined || lexLess(key, best.key)) best = { share: share.alloc, key };
    if (qualityMax < 0) qualityMax = gpuJob ? bestQualityAnywhere(candidates, gpusWanted, req.gpuType) : 0;
    // Candidates come in Weight order: nothing later beats an exact fit with the best links any node could give.
    if (best.key[0] === -qualityMax && best.key[1] === 0 && best.key[3] === 0) break;
  }
  assert(best === undefined || best.share.gpuIndices.length === gpusWanted, "a single-node share has every GPU the job asked for");
  return best?.share;
}

/** a < b, comparing element by element. */
function lexLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y;
  }
  return false;
}

/** The best worst-link any candidate's kind of node offers for `count` GPUs when empty (an upper bound). */
function bestQualityAnywhere(candidates: Capacity[], count: number, type: string): number {
  let max = 0;
  const seen: LinkMatrix[] = []; // a handful of distinct matrices (one per node model), so a list beats a Set
  for (const { node } of candidates) {
    if (node.gpuLinks === undefined || node.gpuCount < count || seen.includes(node.gpuLinks)) continue;
    seen.push(node.gpuLinks);
    max = Math.max(max, pickGpus(node.gpuLinks, gpuPool(node, type, false), count)?.minQuality ?? 0);
  }
  return max;
}

function orderCandidates(req: ResourceRequest, nodes: NodeView[], mode: FitMode): Capacity[] | undefined {
  let ordered = nodes;
  if (req.nodelist.length > 0) {
    const byName = new Map(nodes.map((n) => [n.name, n]));
    for (const name of req.nodelist) if (!byName.has(name)) return undefined;
    const required = new Set(req.nodelist);
    ordered = [...req.nodelist.map((n) => byName.get(n)!), ...nodes.filter((n) => !required.has(n.name))];
  }
  const out: Capacity[] = [];
  for (const node of ordered) {
    const tasks = taskRoom(req, node, mode);
    // A required node that cannot take even one task now keeps the job pending; it never moves elsewhere.
    if (tasks < 1 && req.nodelist.includes(node.name)) return undefined;
    if (tasks >= 1) out.push({ node, tasks });
  }
  return out;
}

const ROOM: LayoutNode = { name: "", freeCpus: 0, cpus: 0 };

/** Whether the node has the sockets, cores per socket and threads per core the request names (0/absent: any). */
export function socketsCoresThreadsFit(req: ResourceRequest, node: NodeView): boolean {
  return (req.socketsPerNode ?? 0) <= (node.sockets?.count ?? 1)
    && (req.coresPerSocket ?? 0) <= (node.coresPerSocket ?? Number.POSITIVE_INFINITY)
    && (req.threadsPerCoreMin ?? 0) <= (node.threadsPerCore ?? 1);
}

/** CPUs of one of the node's sockets (its CPUs split evenly over its sockets). */
const socketCpus = (node: NodeView): number => Math.floor(node.cpus / Math.max(1, node.socketCount ?? node.sockets?.count ?? 1));

/** Tasks the node could take for this request (0 when it is excluded or lacks what the job needs). */
function taskRoom(req: ResourceRequest, node: NodeView, mode: FitMode): number {
  if (req.exclude.length > 0 && req.exclude.includes(node.name)) return 0;
  if (req.features.length > 0 && !req.features.every((f) => node.features.includes(f))) return 0;
  if (req.gpuType && wantsGpus(req) && gpuPool(node, req.gpuType, false).length === 0) return 0;
  if (mode === "now" && (!node.usable || (req.exclusive && !node.idle))) return 0;
  if (mode === "now" && node.users !== undefined && req.user !== undefined && !userMayUse(node.users, req.user)) return 0;
  if (!socketsCoresThreadsFit(req, node)) return 0;
  if ((req.tmpMib ?? 0) > (node.tmpDiskMib ?? 0)) return 0;
  if (genericGresOn(req, node, mode) === undefined) return 0;
  const cpus = mode === "now" ? node.freeCpus : node.cpus;
  if ((req.minCpusPerNode ?? 0) > cpus) return 0;
  if ((req.leastTasksPerNode ?? 0) * req.cpusPerTask > cpus) return 0;
  // --ntasks-per-socket: a socket must hold that many tasks' CPUs, --overcommit or not (oracle 22.05:
  // `--ntasks-per-socket=5`, or 2 with -c 3, is "Requested node configuration is not available" on 4-CPU sockets)
  if ((req.ntasksPerSocket ?? 0) * req.cpusPerTask > socketCpus(node)) return 0;
  const shape = nodeShape(req, node);
  // one scratch object for every candidate: nodeFits and layoutTaskRoom only read it
  const room = ROOM;
  room.name = node.name;
  room.freeCpus = cpus;
  room.cpus = node.cpus;
  if (!nodeFits(shape, room)) return 0;
  let tasks = layoutTaskRoom(shape, room);
  if ((req.ntasksPerSocket ?? 0) > 0) tasks = Math.min(tasks, (req.ntasksPerSocket ?? 0) * Math.max(1, node.socketCount ?? 1));
  if (req.gpusPerTask > 0) {
    const gpus = gpuPool(node, req.gpuType, mode === "now").length;
    tasks = Math.min(tasks, Math.floor(gpus / req.gpusPerTask));
  }
  return tasks;
}

/** The request's layout on this node: a task's CPUs are whole cores' threads under --hint=nomultithread. */
function nodeShape(req: ResourceRequest, node: NodeView): LayoutShape {
  const factor = threadsFactor(req, node);
  const c = shapeCache;
  const l = req.layout;
  // fitJob asks this of every candidate node with one request: reuse the last answer while every input layoutOf reads is the same
  if (
    c !== undefined && c.req === req && c.factor === factor && c.layout === l && c.nodesMin === req.nodesMin &&
    c.nodesMax === req.nodesMax && c.ntasks === req.ntasks && c.cpusPerTask === req.cpusPerTask &&
    c.ntasksPerNode === req.ntasksPerNode && c.exclusive === req.exclusive &&
    (l === undefined || (c.nodesGiven === l.nodesGiven && c.layoutNodesMax === l.nodesMax && c.ntasksGiven === l.ntasksGiven && c.overcommit === l.overcommit))
  ) return c.shape;
  const shape: LayoutShape = Object.freeze({ ...layoutOf(req), cpusPerTask: req.cpusPerTask * factor });
  shapeCache = {
    req, factor, layout: l, nodesMin: req.nodesMin, nodesMax: req.nodesMax, ntasks: req.ntasks, cpusPerTask: req.cpusPerTask,
    ntasksPerNode: req.ntasksPerNode, exclusive: req.exclusive,
    nodesGiven: l?.nodesGiven, layoutNodesMax: l?.nodesMax, ntasksGiven: l?.ntasksGiven, overcommit: l?.overcommit, shape,
  };
  return shape;
}

/** nodeShape's last answer and everything layoutOf read to make it (read-only: the shape is frozen). */
let shapeCache:
  | {
      req: ResourceRequest; factor: number; layout: LayoutShape | undefined; nodesMin: number; nodesMax: number; ntasks: number;
      cpusPerTask: number; ntasksPerNode: number; exclusive: boolean; nodesGiven: boolean | undefined;
      layoutNodesMax: number | undefined; ntasksGiven: boolean | undefined; overcommit: boolean | undefined; shape: LayoutShape;
    }
  | undefined;

/** CPUs per task CPU: a whole core's threads under --hint=nomultithread, else 1. */
const threadsFactor = (req: ResourceRequest, node: NodeView): number => (req.oneThreadPerCore ? Math.max(1, node.threadsPerCore ?? 1) : 1);

function gpusNeededPerNode(req: ResourceRequest, nodes: number): number {
  if (req.gpusPerNode > 0) return req.gpusPerNode;
  if (req.gpusTotal > 0) return Math.ceil(req.gpusTotal / Math.max(1, nodes));
  return 0;
}

interface Share {
  alloc: NodeAllocState;
  /** Worst link quality among the chosen GPUs (0 for fewer than two, or no topology). */
  quality: number;
}

function makeShare(req: ResourceRequest, node: NodeView, tasks: number, gpusPerNode: number, mode: FitMode): Share | undefined {
  const gpus = req.gpusPerSocket ? req.gpusPerSocket * Math.max(1, req.socketsPerNode ?? 0) : req.gpusPerTask > 0 ? req.gpusPerTask * tasks : gpusPerNode;
  const freeGpus = gpus > 0 ? gpuPool(node, req.gpuType, mode === "now") : [];
  const taskCpus = shareCpus(nodeShape(req, node), { name: node.name, freeCpus: node.freeCpus, cpus: node.cpus }, tasks);
  const cpus = req.exclusive ? node.cpus : Math.max(taskCpus, gpus * (req.cpusPerGpu ?? 0), req.minCpusPerNode ?? 0);
  const nodeFree = mode === "now" ? node.freeCpus : node.cpus;
  if (cpus > nodeFree) return undefined;
  const placed = placeGpus(req, node, freeGpus, gpus, cpus, mode);
  if (placed === undefined) return undefined;
  const generic = genericGresOn(req, node, mode);
  if (generic === undefined) return undefined;
  const memMib = memForShare(req, cpus, gpus, node.memMiB);
  const memFree = mode === "now" ? node.freeMemMiB : node.memMiB;
  if (memMib > memFree) return undefined;
  const alloc: NodeAllocState = { node: node.name, cpus, memMib, gpuIndices: placed.indices, tasks };
  if (placed.socketCpus !== undefined) alloc.socketCpus = socketCpusText(placed.socketCpus);
  if (generic.length > 0) alloc.gres = formatGresItems(generic, false);
  return { alloc, quality: placed.quality };
}

/** Shared answer for the common request without generic GRES (asked per candidate node); frozen, callers only read it. */
const NO_GRES: GresItem[] = Object.freeze([]) as unknown as GresItem[];

/** The generic GRES the request takes on this node ([] when it asks none), undefined when they do not fit. */
function genericGresOn(req: ResourceRequest, node: NodeView, mode: FitMode): GresItem[] | undefined {
  if (req.gresGeneric === undefined || req.gresGeneric.length === 0) return NO_GRES;
  if (!sharingFitsOneGpu(req.gresGeneric, node.gresTotal ?? [], node.gpuCount)) return undefined;
  const taken = takeGres(req.gresGeneric, (mode === "now" ? node.gresFree : node.gresTotal) ?? []);
  return taken === undefined || node.gpuCount === 0 ? taken : placeSharing(req.gresGeneric, taken, node, mode === "now");
}


/** The share's GPUs (and its CPUs per socket when the node's sockets are known). */
function placeGpus(
  req: ResourceRequest, node: NodeView, freeGpus: number[], gpus: number, cpus: number, mode: FitMode,
): { indices: number[]; quality: number; socketCpus?: number[] } | undefined {
  const layout = node.sockets;
  if (layout === undefined) {
    // No socket layout (one socket): --gpus-per-socket is per node there; enforce-binding has nothing to choose between.
    if (req.gpusPerSocket && (req.socketsPerNode ?? 0) > 1) return undefined;
    const pick = pickGpus(node.gpuLinks, freeGpus, gpus);
    return pick && { indices: pick.indices, quality: pick.minQuality };
  }
  const perSocket = Math.floor(node.cpus / layout.count);
  const cap = mode === "now" ? node.freeCpus : node.cpus;
  const socketFree = Array.from({ length: layout.count }, (_, s) => Math.min(cap, mode === "now" ? (layout.freeCpus?.[s] ?? perSocket) : perSocket));
  const rules = { enforceBinding: req.enforceBinding === true, gpusPerSocket: req.gpusPerSocket ?? 0, socketsPerNode: req.socketsPerNode ?? 0 };
  const pick = placeOnSockets(layout, socketFree, node.gpuLinks, freeGpus, gpus, cpus, rules);
  return pick && { indices: pick.gpuIndices, quality: pick.quality, socketCpus: pick.socketCpus };
}
