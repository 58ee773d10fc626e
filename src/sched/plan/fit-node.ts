/**
 * @module sched/plan/fit-node
 * Places one job's request on a set of nodes: block distribution of tasks over
 * the fewest nodes in node order (required nodes first), CPUs, memory and GPU
 * indices per node. The same function answers "does it fit now" (free resources)
 * and "could it ever fit" (total resources), so a submission that can never run
 * is rejected with Slurm's "Requested node configuration is not available".
 */
import type { Plain } from "../../lib/plain.ts";
import type { NodeAlloc } from "../../net/gen/spur/v1/types_pb.ts";
import { memForShare, type ResourceRequest } from "./request.ts";

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
}

export type FitMode = "now" | "ever";

interface Capacity {
  node: NodeView;
  tasks: number;
}

export function fitJob(req: ResourceRequest, nodes: NodeView[], mode: FitMode): Plain<NodeAlloc>[] | undefined {
  const candidates = orderCandidates(req, nodes, mode);
  if (candidates === undefined) return undefined;
  const nodesWanted = Math.max(req.nodesMin, req.nodelist.length);
  const gpusPerNode = gpusNeededPerNode(req, nodesWanted);
  const chosen: Plain<NodeAlloc>[] = [];
  let remaining = req.ntasks;
  for (const { node, tasks } of candidates) {
    const mustTake = req.nodelist.includes(node.name);
    if (remaining <= 0 && chosen.length >= nodesWanted && !mustTake) break;
    const reserveForOthers = Math.max(0, nodesWanted - chosen.length - 1);
    const take = Math.max(1, Math.min(tasks, remaining - reserveForOthers));
    const share = makeShare(req, node, take, gpusPerNode, mode);
    if (share === undefined) {
      if (mustTake) return undefined;
      continue;
    }
    chosen.push(share);
    remaining -= take;
  }
  if (remaining > 0 || chosen.length < nodesWanted || chosen.length > Math.max(req.nodesMax, nodesWanted)) return undefined;
  return chosen;
}

function orderCandidates(req: ResourceRequest, nodes: NodeView[], mode: FitMode): Capacity[] | undefined {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  for (const name of req.nodelist) if (!byName.has(name)) return undefined;
  const ordered = [
    ...req.nodelist.map((n) => byName.get(n)).filter((n): n is NodeView => n !== undefined),
    ...nodes.filter((n) => !req.nodelist.includes(n.name)),
  ];
  const out: Capacity[] = [];
  for (const node of ordered) {
    if (req.exclude.includes(node.name)) continue;
    if (!req.features.every((f) => node.features.includes(f))) continue;
    if (req.gpuType && (req.gpusPerNode || req.gpusTotal || req.gpusPerTask) && node.gpuModel !== req.gpuType) continue;
    if (mode === "now" && (!node.usable || (req.exclusive && !node.idle))) continue;
    const cpus = mode === "now" ? node.freeCpus : node.cpus;
    let tasks = Math.floor(cpus / req.cpusPerTask);
    if (req.ntasksPerNode > 0) tasks = Math.min(tasks, req.ntasksPerNode);
    if (req.gpusPerTask > 0) {
      const gpus = mode === "now" ? node.freeGpus.length : node.gpuCount;
      tasks = Math.min(tasks, Math.floor(gpus / req.gpusPerTask));
    }
    if (tasks >= 1) out.push({ node, tasks });
  }
  return out;
}

function gpusNeededPerNode(req: ResourceRequest, nodes: number): number {
  if (req.gpusPerNode > 0) return req.gpusPerNode;
  if (req.gpusTotal > 0) return Math.ceil(req.gpusTotal / Math.max(1, nodes));
  return 0;
}

function makeShare(
  req: ResourceRequest,
  node: NodeView,
  tasks: number,
  gpusPerNode: number,
  mode: FitMode,
): Plain<NodeAlloc> | undefined {
  const gpus = req.gpusPerTask > 0 ? req.gpusPerTask * tasks : gpusPerNode;
  const freeGpus = mode === "now" ? node.freeGpus : Array.from({ length: node.gpuCount }, (_, i) => i);
  if (gpus > freeGpus.length) return undefined;
  const cpus = req.exclusive ? node.cpus : tasks * req.cpusPerTask;
  const memMib = memForShare(req, cpus, gpus, node.memMiB);
  const memFree = mode === "now" ? node.freeMemMiB : node.memMiB;
  if (memMib > memFree) return undefined;
  return { node: node.name, cpus, memMib, gpuIndices: freeGpus.slice(0, gpus), tasks };
}
