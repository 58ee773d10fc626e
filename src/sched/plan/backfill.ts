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
import type { Plain } from "../../lib/plain.ts";
import type { NodeAlloc } from "../../net/gen/spur/v1/types_pb.ts";
import { fitJob, type NodeView } from "./fit-node.ts";
import { memForShare, type ResourceRequest } from "./request.ts";
import { earliestCommonStart, INFINITE_END, type Capacity, type Timeline } from "./timeline.ts";
import { assert } from "../../lib/assert.ts";

/** The pass's mutable working copy of the nodes, index-aligned with the timeline. */
export interface Placement {
  views: NodeView[];
  timeline: Timeline;
  /** Node indices holding at least one reservation (their future differs from their present). */
  reserved: Set<number>;
}

export interface Reservation {
  jobId: number;
  startTime: number;
  nodes: string[];
}

/** How many attempts `reserve` makes at later instants when fitJob rejects the first one. */
const RESERVE_ATTEMPTS_MAX = 4;

const staticOk = (req: ResourceRequest, v: NodeView): boolean =>
  v.usable &&
  !req.exclude.includes(v.name) &&
  req.features.every((f) => v.features.includes(f)) &&
  !(req.gpuType && (req.gpusPerNode || req.gpusTotal || req.gpusPerTask) && v.gpuModel !== req.gpuType);

/** Try to place the job now, keeping clear of every reservation for `durationSec`. */
export function startNow(p: Placement, req: ResourceRequest, candidates: readonly number[], durationSec: number): Plain<NodeAlloc>[] | undefined {
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
    });
  }
  if (views.length === 0) return undefined;
  return fitJob(req, views, "now");
}

/** Charge a started job to the views and the timeline. */
export function commitStart(p: Placement, index: ReadonlyMap<string, number>, alloc: readonly Plain<NodeAlloc>[], durationSec: number): void {
  const now = p.timeline.now;
  const end = durationSec === INFINITE_END ? INFINITE_END : p.timeline.roundEnd(now + durationSec);
  for (const share of alloc) {
    const i = index.get(share.node);
    assert(i !== undefined, `share node ${share.node} is in the pass`);
    const v = p.views[i] as NodeView;
    v.freeCpus -= share.cpus;
    v.freeMemMiB -= share.memMib;
    if (share.gpuIndices.length > 0) v.freeGpus = v.freeGpus.filter((g) => !share.gpuIndices.includes(g));
    v.idle = false;
    assert(v.freeCpus >= 0 && v.freeMemMiB >= 0, `no over-allocation on ${v.name}`);
    p.timeline.add(i, { start: now, end, cpus: share.cpus, memMiB: share.memMib, gpus: share.gpuIndices.length });
  }
}

/** The per-node share the planner assumes: tasks spread evenly over the wanted node count. */
function uniformShare(req: ResourceRequest, v: NodeView): Capacity {
  const nodes = Math.max(req.nodesMin, req.nodelist.length);
  const tasks = req.ntasksPerNode > 0 ? req.ntasksPerNode : Math.ceil(req.ntasks / nodes);
  if (req.exclusive) return { cpus: v.cpus, memMiB: v.memMiB, gpus: v.gpuCount };
  const gpus = req.gpusPerTask > 0 ? req.gpusPerTask * tasks : req.gpusPerNode > 0 ? req.gpusPerNode : Math.ceil(req.gpusTotal / nodes);
  const cpus = tasks * req.cpusPerTask;
  return { cpus, memMiB: memForShare(req, cpus, gpus, v.memMiB), gpus };
}

/**
 * Reserve the earliest start within `horizon` on the candidate nodes, or
 * return undefined (no start known: squeue shows N/A).
 */
export function reserve(
  p: Placement,
  req: ResourceRequest,
  candidates: readonly number[],
  durationSec: number,
  horizon: number,
): { startTime: number; alloc: Plain<NodeAlloc>[] } | undefined {
  const now = p.timeline.now;
  const wanted = Math.max(req.nodesMin, req.nodelist.length);
  const nodes: number[] = [];
  const intervals: [number, number][][] = [];
  for (const i of candidates) {
    const v = p.views[i] as NodeView;
    if (!staticOk(req, v)) continue;
    const list = p.timeline.feasibleStarts(i, uniformShare(req, v), durationSec, now, horizon);
    if (list.length === 0) continue;
    nodes.push(i);
    intervals.push(list);
  }
  const tried = new Set<number>();
  for (let attempt = 0; attempt < RESERVE_ATTEMPTS_MAX; attempt++) {
    const t = earliestCommonStart(intervals, wanted, tried);
    if (t === undefined) return undefined;
    tried.add(t);
    const alloc = fitAt(p, req, nodes, intervals, t, durationSec);
    if (alloc === undefined) continue;
    const end = durationSec === INFINITE_END ? INFINITE_END : t + durationSec;
    for (const share of alloc) {
      const i = nodes.find((n) => (p.views[n] as NodeView).name === share.node);
      assert(i !== undefined, "reserved share on a candidate node");
      p.timeline.add(i, { start: t, end, cpus: share.cpus, memMiB: share.memMib, gpus: share.gpuIndices.length });
      p.reserved.add(i);
    }
    return { startTime: t, alloc };
  }
  return undefined;
}

/** fitJob over the nodes feasible at `t`, each seen with its least free over [t, t + duration). */
function fitAt(
  p: Placement,
  req: ResourceRequest,
  nodes: readonly number[],
  intervals: readonly [number, number][][],
  t: number,
  durationSec: number,
): Plain<NodeAlloc>[] | undefined {
  const end = durationSec === INFINITE_END ? INFINITE_END : t + durationSec;
  const views: NodeView[] = [];
  for (let k = 0; k < nodes.length; k++) {
    const list = intervals[k] as [number, number][];
    if (!list.some(([a, b]) => a <= t && t <= b)) continue;
    const i = nodes[k] as number;
    const v = p.views[i] as NodeView;
    const free = p.timeline.minFree(i, t, end);
    views.push({
      ...v,
      freeCpus: free.cpus,
      freeMemMiB: free.memMiB,
      freeGpus: Array.from({ length: Math.max(0, free.gpus) }, (_, g) => g),
      idle: free.cpus === v.cpus && free.memMiB === v.memMiB && free.gpus === v.gpuCount,
      usable: true,
    });
  }
  return fitJob(req, views, "now");
}
