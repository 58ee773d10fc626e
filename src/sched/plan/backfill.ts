/**
 * @module sched/plan/backfill
 * Placement against the timeline: "start now" (the share must stay free for the
 * job's whole time limit, so a job started now never takes what a reservation
 * of a higher-priority job needs: the EASY rule) and "reserve" (the earliest
 * instant within bf_window at which the job fits on enough nodes, recorded in
 * the timeline so that lower-priority jobs plan around it). Both call
 * fit-node's fitJob on views whose free resources are the timeline's minimum
 * over the interval, so placement rules stay in one place.
 */
import { addSharing, freeGres } from "./gres-fit.ts";
import { parseGresItems } from "../../compat/gres-generic.ts";
import { gresFreeOver, gresRoomAt, holdGres, type GresHolds } from "./gres-holds.ts";
import { fitJob, type NodeView } from "./fit-node.ts";
import { memForShare, type ResourceRequest } from "./request.ts";
import { INFINITE_END, type Capacity, type Timeline } from "./timeline.ts";
import { assert } from "../../lib/assert.ts";
import { gpuSocketsOf, parseSocketCpus } from "../../compat/gpu-locality.ts";
import type { SocketLayout } from "./gpu-sockets.ts";
import type { ClusterState, NodeRecord } from "../model/types.ts";
import { freeResources, freeSocketCpus, genericGresFree, genericGresTotal, nodeAcceptsWork, sharingUsedOn } from "../model/resources.ts";
import { parseGpuTopology } from "../../devices/gpu-topology.ts";
import { gpuTypesOfGres, mixedGpuTypes } from "../../compat/gpu-types.ts";
import type { NetworkTopology } from "../../compat/conf/topology-conf.ts";
import type { NodeAllocState } from "../model/state-types.ts";
import { anyExclusiveUser, usersOnNode, withUser, type UserAsk } from "./user-exclusive.ts";

/** The pass's mutable working copy of the nodes, index-aligned with the timeline. */
export interface Placement {
  views: NodeView[];
  timeline: Timeline;
  /** Node indices holding at least one reservation (their future differs from their present). */
  reserved: Set<number>;
  /** Switch tree from topology.conf: multi-node jobs go under the lowest common switch. */
  topology?: NetworkTopology | undefined;
  /** Node name -> index in views and timeline. */
  index: ReadonlyMap<string, number>;
  /**
   * Counted GRES (nvme:1) held over time per node index: running jobs, starts and
   * reservations of this pass. The timeline counts CPUs, memory and GPUs only.
   */
  gresHolds?: GresHolds;
}


export interface Reservation {
  jobId: number;
  startTime: number;
  nodes: string[];
}

/** How many attempts findReservation makes at later instants when fitJob rejects the first one. */
const RESERVE_ATTEMPTS_MAX = 4;

function staticOk(req: ResourceRequest, v: NodeView): boolean {
  if (!v.usable || req.exclude.includes(v.name)) return false;
  // a loop, not every(): this runs for every node of every shape grid, and a closure per call is garbage
  for (let k = 0; k < req.features.length; k++) if (!v.features.includes(req.features[k] as string)) return false;
  return !(req.gpuType && (req.gpusPerNode || req.gpusTotal || req.gpusPerTask) && v.gpuModel !== req.gpuType);
}

/**
 * The partition's nodes that still have a free CPU, in partition order. Nodes
 * only lose resources during a pass, so a full node is dropped for good; this
 * keeps "start now" proportional to the free nodes, not to the partition.
 */
export function withFreeCpus(p: Placement, candidates: number[]): number[] {
  let w = 0;
  for (let r = 0; r < candidates.length; r++) {
    const i = candidates[r] as number;
    const v = p.views[i] as NodeView;
    if (v.usable && v.freeCpus > 0) candidates[w++] = i;
  }
  candidates.length = w;
  return candidates;
}

/** Try to place the job now, keeping clear of every reservation for `durationSec`. */
export function startNow(p: Placement, req: ResourceRequest, candidates: readonly number[], durationSec: number): NodeAllocState[] | undefined {
  for (const name of req.nodelist) {
    if (!candidates.some((i) => (p.views[i] as NodeView).name === name)) return undefined;
  }
  const now = p.timeline.now;
  const end = durationSec === INFINITE_END ? INFINITE_END : now + durationSec;
  const views: NodeView[] = [];
  const needGpus = req.gpusPerNode > 0 || req.gpusTotal > 0 || req.gpusPerTask > 0;
  for (const i of candidates) {
    const v = p.views[i] as NodeView;
    if (!v.usable || v.freeCpus < req.cpusPerTask || (needGpus && v.freeGpus.length === 0)) {
      if (req.nodelist.includes(v.name)) return undefined;
      continue;
    }
    if (!p.reserved.has(i)) {
      views.push(v);
      continue;
    }
    const free = p.timeline.minFree(i, now, end);
    views.push({
      ...v,
      freeCpus: Math.min(v.freeCpus, free.cpus),
      freeMemMiB: Math.min(v.freeMemMiB, free.memMiB),
      freeGpus: v.freeGpus.slice(0, Math.max(0, Math.min(v.freeGpus.length, free.gpus))),
      idle: v.idle && free.cpus === v.cpus,
      ...(v.gresTotal ? { gresFree: gresFreeOver(p, i, v, now, end) } : {}),
    });
  }
  if (views.length === 0) return undefined;
  return fitJob(req, views, "now", p.topology);
}

/** Charge a started job to the views and the timeline (`user`: its side of --exclusive=user's rule, for the jobs placed after it). */
export function commitStart(p: Placement, index: ReadonlyMap<string, number>, alloc: readonly NodeAllocState[], durationSec: number, user?: UserAsk): void {
  const now = p.timeline.now;
  const end = durationSec === INFINITE_END ? INFINITE_END : p.timeline.roundEnd(now + durationSec);
  for (const share of alloc) {
    const i = index.get(share.node);
    assert(i !== undefined, `share node ${share.node} is in the pass`);
    const v = p.views[i] as NodeView;
    takeShare(v, share, user);
    p.timeline.add(i, { start: now, end, cpus: share.cpus, memMiB: share.memMib, gpus: share.gpuIndices.length });
    holdGres(p, i, now, end, share.gres);
  }
}

/** The node's view after a share of it is taken now (arrays are replaced, never changed in place, so a shallow copy may be charged). */
export function takeShare(v: NodeView, share: NodeAllocState, user?: UserAsk): void {
  if (user !== undefined) v.users = withUser(v.users, user);
  v.freeCpus -= share.cpus;
  v.freeMemMiB -= share.memMib;
  if (share.gpuIndices.length > 0) v.freeGpus = v.freeGpus.filter((g) => !share.gpuIndices.includes(g));
  // counted GRES the share takes (nvme:1): later jobs of this pass see them gone; a shard's GPU is no longer whole-free
  if (share.gres && v.gresFree) {
    const items = parseGresItems(share.gres);
    v.gresFree = freeGres(v.gresFree, [items]);
    v.sharingUsed = addSharing(v.sharingUsed, items);
    const onGpus = new Set(items.flatMap((g) => (g.gpu === undefined ? [] : [g.gpu])));
    if (onGpus.size > 0) v.freeGpus = v.freeGpus.filter((g) => !onGpus.has(g));
  }
  if (share.socketCpus && v.sockets?.freeCpus) {
    const taken = parseSocketCpus(share.socketCpus);
    v.sockets = { ...v.sockets, freeCpus: v.sockets.freeCpus.map((f, s) => Math.max(0, f - (taken[s] ?? 0))) };
  }
  v.idle = false;
  assert(v.freeCpus >= 0 && v.freeMemMiB >= 0, `no over-allocation on ${v.name}`);
}

/** CPUs and GPUs of the per-node share the planner assumes for a non-exclusive job: tasks spread evenly over the wanted node count. */
function evenShare(req: ResourceRequest): { cpus: number; gpus: number } {
  const nodes = Math.max(req.nodesMin, req.nodelist.length);
  const tasks = req.ntasksPerNode > 0 ? req.ntasksPerNode : Math.ceil(req.ntasks / nodes);
  const gpus = req.gpusPerSocket
    ? req.gpusPerSocket * Math.max(1, req.socketsPerNode ?? 0)
    : req.gpusPerTask > 0 ? req.gpusPerTask * tasks : req.gpusPerNode > 0 ? req.gpusPerNode : Math.ceil(req.gpusTotal / nodes);
  return { cpus: tasks * req.cpusPerTask, gpus };
}

/**
 * What gridRuns reads of a request (staticOk's fields and uniformShare's share), as a key: requests
 * with equal keys have equal feasible runs on every node, so they share one ShapeEntry (a 2-node and
 * a 64-node exclusive job of one duration plan on the same grid). Conservative: lists keep their order.
 */
export function gridShapeKey(req: ResourceRequest): string {
  const gpuType = req.gpuType && (req.gpusPerNode || req.gpusTotal || req.gpusPerTask) ? req.gpuType : "";
  const fixed = `${req.exclude.join(",")}|${req.features.join(",")}|${gpuType}`;
  if (req.exclusive) return `${fixed}|X`;
  const { cpus, gpus } = evenShare(req);
  return `${fixed}|${cpus}|${gpus}|${req.mem.kind}|${req.mem.kind === "all" ? 0 : req.mem.mib}`;
}

/**
 * Where one request shape (partition nodes, per-node share, duration) could
 * start, per node, on the bf_resolution grid, plus a difference array whose
 * prefix sums count the nodes feasible at each grid instant. Kept for the
 * whole pass and refreshed only for nodes whose slots changed since last use,
 * so testing many jobs of the same shape costs O(changed nodes + grid), not
 * O(nodes) each: this is what keeps a 500-job backfill pass on 10k nodes fast.
 * Flat typed arrays, not a list per node: a pass builds dozens of shapes on
 * 10k nodes, and a list per node per shape was most of the pass's garbage.
 */
interface ShapeEntry {
  candidates: readonly number[];
  /** Node index -> its position in candidates (-1: not one of them). */
  position: Int32Array;
  /**
   * Per candidate k: its first feasible grid interval, first at [3k] and last at [3k + 1]
   * (none when first > last), and at [3k + 2] 1 when it has further ones, kept in `more`.
   */
  runs: Int32Array;
  /** The further intervals (after the first) of the few candidates with several, flat [first, last, ...]. */
  more: Map<number, number[]>;
  diff: Int32Array;
  /** How much of timeline.changes this entry has taken into account. */
  seen: number;
}

export interface Grid {
  /** Grid instants: 0 .. slots (now + slots * resolution = the bf_window horizon). */
  slots: number;
  shapes: Map<string, ShapeEntry>;
  /** Position of each node in a candidate list, shared by all shapes of one partition. */
  positions: Map<readonly number[], Int32Array>;
  /** Scratch for one node's intervals, reused for every node of every shape. */
  scratch: number[];
}

export function newGrid(windowSec: number, resolutionSec: number): Grid {
  return { slots: Math.max(1, Math.floor(windowSec / resolutionSec)), shapes: new Map(), positions: new Map(), scratch: [] };
}

/** Node `node`'s feasible grid intervals for the shape, into `out` as [first, last, ...] (emptied first). */
function gridRuns(p: Placement, req: ResourceRequest, cpus: number, gpus: number, node: number, durationSec: number, slots: number, out: number[]): void {
  out.length = 0;
  const v = p.views[node] as NodeView;
  if (!staticOk(req, v)) return;
  const res = p.timeline.resolutionSec;
  const now = p.timeline.now;
  // the per-node share the planner assumes: the whole node when exclusive, else the even share with its memory
  if (req.exclusive) p.timeline.feasibleRuns(node, v.cpus, v.memMiB, v.gpuCount, durationSec, now, now + slots * res, out);
  else p.timeline.feasibleRuns(node, cpus, memForShare(req, cpus, gpus, v.memMiB), gpus, durationSec, now, now + slots * res, out);
  // instants to grid slots, in place (a pair is written no later than it was read)
  let w = 0;
  for (let k = 0; k < out.length; k += 2) {
    const first = Math.ceil(((out[k] as number) - now) / res);
    const end = Math.min(slots, Math.floor(((out[k + 1] as number) - now) / res));
    if (first <= end) {
      out[w++] = first;
      out[w++] = end;
    }
  }
  out.length = w;
}

function bump(diff: Int32Array, first: number, last: number, sign: number): void {
  diff[first] = (diff[first] as number) + sign;
  diff[last + 1] = (diff[last + 1] as number) - sign;
}

/** Count candidate k's intervals in the difference array (sign 1) or take them out (-1). */
function applyRuns(entry: ShapeEntry, k: number, sign: number): void {
  const runs = entry.runs;
  if ((runs[3 * k] as number) <= (runs[3 * k + 1] as number)) bump(entry.diff, runs[3 * k] as number, runs[3 * k + 1] as number, sign);
  if (runs[3 * k + 2] !== 1) return;
  const more = entry.more.get(k) as number[];
  for (let r = 0; r < more.length; r += 2) bump(entry.diff, more[r] as number, more[r + 1] as number, sign);
}

/** Record candidate k's intervals (from gridRuns' `fresh`) in the entry. */
function setRuns(entry: ShapeEntry, k: number, fresh: readonly number[]): void {
  const runs = entry.runs;
  if (fresh.length === 0) {
    runs[3 * k] = 1;
    runs[3 * k + 1] = 0;
  } else {
    runs[3 * k] = fresh[0] as number;
    runs[3 * k + 1] = fresh[1] as number;
  }
  if (fresh.length > 2) {
    runs[3 * k + 2] = 1;
    entry.more.set(k, fresh.slice(2));
  } else if (runs[3 * k + 2] === 1) {
    runs[3 * k + 2] = 0;
    entry.more.delete(k);
  }
}

/** Whether candidate k may start at grid instant j. */
function feasibleAt(entry: ShapeEntry, k: number, j: number): boolean {
  const runs = entry.runs;
  if ((runs[3 * k] as number) <= j && j <= (runs[3 * k + 1] as number)) return true;
  if (runs[3 * k + 2] !== 1) return false;
  const more = entry.more.get(k) as number[];
  for (let r = 0; r < more.length; r += 2) if ((more[r] as number) <= j && j <= (more[r + 1] as number)) return true;
  return false;
}

function positionsOf(p: Placement, grid: Grid, candidates: readonly number[]): Int32Array {
  let position = grid.positions.get(candidates);
  if (position === undefined) {
    position = new Int32Array(p.views.length).fill(-1);
    for (let k = 0; k < candidates.length; k++) position[candidates[k] as number] = k;
    grid.positions.set(candidates, position);
  }
  return position;
}

function shapeEntry(p: Placement, grid: Grid, key: string, req: ResourceRequest, candidates: readonly number[], durationSec: number): ShapeEntry {
  let entry = grid.shapes.get(key);
  const { cpus, gpus } = evenShare(req);
  const scratch = grid.scratch;
  if (entry === undefined) {
    entry = {
      candidates,
      position: positionsOf(p, grid, candidates),
      runs: new Int32Array(3 * candidates.length),
      more: new Map(),
      diff: new Int32Array(grid.slots + 2),
      seen: p.timeline.changes.length,
    };
    for (let k = 0; k < candidates.length; k++) {
      gridRuns(p, req, cpus, gpus, candidates[k] as number, durationSec, grid.slots, scratch);
      setRuns(entry, k, scratch);
      applyRuns(entry, k, 1);
    }
    grid.shapes.set(key, entry);
    return entry;
  }
  const changes = p.timeline.changes;
  const redo = new Set<number>();
  for (let c = entry.seen; c < changes.length; c++) {
    const k = entry.position[changes[c] as number] as number;
    if (k >= 0) redo.add(k);
  }
  for (const k of redo) {
    applyRuns(entry, k, -1);
    gridRuns(p, req, cpus, gpus, entry.candidates[k] as number, durationSec, grid.slots, scratch);
    setRuns(entry, k, scratch);
    applyRuns(entry, k, 1);
  }
  entry.seen = changes.length;
  return entry;
}

/**
 * The earliest start within the grid's horizon on the candidate nodes, with nothing held yet
 * (commitReservation holds it), or undefined (no start known: squeue shows N/A).
 */
export function findReservation(
  p: Placement,
  grid: Grid,
  shapeKey: string,
  req: ResourceRequest,
  candidates: readonly number[],
  durationSec: number,
  /** Other resources the start needs at t (cluster-wide licenses): a slot where it says no is skipped. */
  acceptAt: (t: number) => boolean = () => true,
): { startTime: number; alloc: NodeAllocState[] } | undefined {
  const wanted = Math.max(req.nodesMin, req.nodelist.length);
  const entry = shapeEntry(p, grid, shapeKey, req, candidates, durationSec);
  const res = p.timeline.resolutionSec;
  let attempts = 0;
  let open = 0;
  for (let j = 0; j <= grid.slots && attempts < RESERVE_ATTEMPTS_MAX; j++) {
    open += entry.diff[j] as number;
    if (open < wanted) continue;
    const t = p.timeline.now + j * res;
    if (!acceptAt(t)) continue;
    // instants where too few nodes have the counted GRES free are skipped, not tried (the timeline does not count them)
    if (!gresRoomAt(p, req, entry.candidates, wanted, t, durationSec)) continue;
    attempts++;
    const alloc = fitAt(p, req, entry, j, wanted, t, durationSec);
    if (alloc === undefined) continue;
    return { startTime: t, alloc };
  }
  return undefined;
}

/** Hold a planned start's nodes on the timeline from its start for its duration (once findReservation has found it). */
export function commitReservation(p: Placement, planned: { startTime: number; alloc: NodeAllocState[] }, durationSec: number): void {
  const t = planned.startTime;
  const end = durationSec === INFINITE_END ? INFINITE_END : p.timeline.roundEnd(t + durationSec);
  for (const share of planned.alloc) {
    const k = p.index.get(share.node);
    assert(k !== undefined, "reserved share on a candidate node");
    p.timeline.add(k, { start: t, end, cpus: share.cpus, memMiB: share.memMib, gpus: share.gpuIndices.length });
    holdGres(p, k, t, end, share.gres);
    p.reserved.add(k);
  }
}

/**
 * fitJob over nodes feasible at grid instant `j` (the first `wanted` of them in
 * partition order, plus any required ones), each seen with its least free over
 * [t, t + duration).
 */
function fitAt(p: Placement, req: ResourceRequest, entry: ShapeEntry, j: number, wanted: number, t: number, durationSec: number): NodeAllocState[] | undefined {
  const end = durationSec === INFINITE_END ? INFINITE_END : t + durationSec;
  const views: NodeView[] = [];
  let picked = 0;
  const required = req.nodelist.length;
  for (let k = 0; k < entry.candidates.length; k++) {
    if (picked >= wanted && required === 0) break;
    if (!feasibleAt(entry, k, j)) continue;
    const i = entry.candidates[k] as number;
    const v = p.views[i] as NodeView;
    const isRequired = required > 0 && req.nodelist.includes(v.name);
    if (picked >= wanted && !isRequired) continue;
    if (!isRequired) picked++;
    const free = p.timeline.minFree(i, t, end);
    views.push({
      ...v,
      freeCpus: free.cpus,
      freeMemMiB: free.memMiB,
      freeGpus: Array.from({ length: Math.max(0, free.gpus) }, (_, g) => g),
      idle: free.cpus === v.cpus && free.memMiB === v.memMiB && free.gpus === v.gpuCount,
      usable: true,
      // a node empty over the whole window has no users then; one still partly held keeps today's (who holds it then is not modelled)
      users: free.cpus === v.cpus && free.memMiB === v.memMiB && free.gpus === v.gpuCount ? undefined : v.users,
      ...(v.gresTotal ? { gresFree: gresFreeOver(p, i, v, t, end) } : {}),
      ...(v.sockets ? { sockets: { ...v.sockets, freeCpus: undefined } } : {}), // per-socket use at that time is not modelled
    });
  }
  return fitJob(req, views, "now", p.topology);
}

/**
 * Heterogeneous jobs start all together or not at all (Slurm): the components are placed one
 * after the other on a trial copy of the node views, each seeing what the earlier ones took
 * (they may share a node); the placement itself is changed only by the caller, once all fit.
 * ComponentAsk: one component's request, the node indices it may use, how long it holds them.
 */
export interface ComponentAsk {
  req: ResourceRequest;
  candidates: readonly number[];
  durationSec: number;
}

/** Each component's shares (in the asks' order) when every one fits now, else undefined. The placement is not changed. */
export function placeTogether(p: Placement, asks: readonly ComponentAsk[]): NodeAllocState[][] | undefined {
  assert(asks.length > 0, "a het job has components");
  const views = p.views.slice();
  const trial: Placement = { ...p, views };
  const out: NodeAllocState[][] = [];
  // Components never share a node (Slurm 22.05 on the oracle: `salloc -N1 : -N1` gets n1 and n2 on
  // idle 4-CPU nodes, and `-N3 : -N2` on 4 nodes waits for Resources forever).
  const taken = new Set<number>();
  for (const ask of asks) {
    const alloc = startNow(trial, ask.req, taken.size === 0 ? ask.candidates : ask.candidates.filter((i) => !taken.has(i)), ask.durationSec);
    if (alloc === undefined) return undefined;
    for (const share of alloc) {
      const i = p.index.get(share.node);
      assert(i !== undefined, `share node ${share.node} is in the pass`);
      taken.add(i);
      const copy: NodeView = { ...(views[i] as NodeView) };
      takeShare(copy, share, ask.req.user);
      views[i] = copy;
    }
    out.push(alloc);
  }
  assert(out.length === asks.length, "one allocation per component");
  return out;
}

/**
 * The pass's starting view of every node: what is free now, its GPUs' links and sockets, and its
 * users when some job asks --exclusive=user (`withUsers` false: views for "ever" fits, which never read them;
 * `exclusiveUser`: anyExclusiveUser's answer where the caller has it).
 */
export function nodeViews(state: ClusterState, withUsers = true, exclusiveUser?: boolean): Map<string, NodeView> {
  const views = new Map<string, NodeView>();
  const users = withUsers && (exclusiveUser ?? anyExclusiveUser(state));
  let order = 0;
  for (const node of state.nodes.values()) {
    const free = freeResources(node);
    views.set(node.info.name, {
      name: node.info.name,
      cpus: node.info.cpus,
      memMiB: node.info.realMemoryMib,
      gpuCount: node.info.gpuCount,
      gpuModel: node.info.gpuModel,
      features: node.info.features ? node.info.features.split(",") : [],
      freeCpus: free.cpus,
      freeMemMiB: free.memMiB,
      freeGpus: free.gpuIndices,
      idle: node.info.allocCpus === 0 && node.gpuByJob.size === 0,
      usable: nodeAcceptsWork(node),
      weight: node.info.weight ?? 1,
      gpuLinks: parseGpuTopology(node.info.gpuTopology, node.info.gpuCount),
      sockets: socketLayout(node),
      threadsPerCore: node.info.threadsPerCore,
      socketCount: node.info.sockets,
      coresPerSocket: node.info.coresPerSocket,
      gpuTypes: nodeGpuTypes(node),
      tmpDiskMib: node.info.tmpDiskMib,
      ...(node.info.gresGeneric ? { gresTotal: genericGresTotal(node), gresFree: genericGresFree(node), sharingUsed: sharingUsedOn(node) } : {}),
      order: order++,
      users: users ? usersOnNode(state, node) : undefined,
    });
  }
  return views;
}

/** A partition's nodes (`names`, in its order) as they are now, for a "now" fit outside the pass (sbatch --test-only); users are not read. */
export function nodeViewsNow(state: ClusterState, names: readonly string[]): NodeView[] {
  const views = nodeViews(state, false);
  return names.map((n) => views.get(n)).filter((v) => v !== undefined);
}

/** Per-index GPU types, only for nodes with several (MIG profiles next to whole GPUs). */
function nodeGpuTypes(node: NodeRecord): string[] | undefined {
  if (!node.info.gres.includes(",")) return undefined;
  const types = gpuTypesOfGres(node.info.gres, node.info.gpuCount);
  return mixedGpuTypes(types) ? types : undefined;
}

/** The node's sockets as placement sees them; absent for one socket, or when its CPUs do not split evenly over them. */
function socketLayout(node: NodeRecord): SocketLayout | undefined {
  const { sockets, cpus, gpuCount } = node.info;
  // One socket: nothing to choose (fit-node treats --gpus-per-socket there as per node).
  if (sockets <= 1 || cpus % sockets !== 0) return undefined;
  const gpuSocket = node.info.gpuCpus ? gpuSocketsOf(node.info.gpuCpus.split(";"), gpuCount, cpus, sockets) : new Array<number>(gpuCount).fill(-1);
  return { count: sockets, gpuSocket, freeCpus: freeSocketCpus(node) };
}

/**
 * Whether the components could ever run together: placed on the nodes as if nothing else ran
 * (all CPUs, memory and GPUs free, no reservation). A het job for which this fails (more
 * exclusive nodes than the partitions have) gets no reservation: it would hold nodes for nothing.
 */
export function fitsTogetherEver(p: Placement, asks: readonly ComponentAsk[]): boolean {
  const views = p.views.map((v) => ({
    ...v, freeCpus: v.cpus, freeMemMiB: v.memMiB, freeGpus: Array.from({ length: v.gpuCount }, (_, g) => g), idle: true, users: undefined,
    ...(v.sockets?.freeCpus ? { sockets: { ...v.sockets, freeCpus: v.sockets.freeCpus.map(() => Math.floor(v.cpus / Math.max(1, v.sockets?.count ?? 1))) } } : {}),
  }));
  const empty: Placement = { ...p, views, reserved: new Set() };
  return placeTogether(empty, asks.map((a) => ({ ...a, candidates: a.candidates.filter((i) => (views[i] as NodeView).usable) }))) !== undefined;
}

