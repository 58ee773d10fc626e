/**
 * @module sched/model/resources
 * Node bookkeeping shared by apply() and the scheduler: what a node has free, how
 * an allocation is charged and released, and the node state that follows from it
 * (IDLE / MIXED / ALLOCATED with DRAIN, NOT_RESPONDING flags), as Slurm derives it.
 */
import { gpuTypesOfGres, mixedGpuTypes } from "../../compat/gpu-types.ts";
import { assert } from "../../lib/assert.ts";
import { compressIndices } from "../../lib/index-ranges.ts";
import type { NodeRecord } from "./types.ts";
import { formatGresItems, parseGresItems, type GresItem } from "../../compat/gres-generic.ts";
import { freeGres, sharingBusyGpus, sharingByGpu } from "../plan/gres-fit.ts";
import { parseSocketCpus, socketCpusText } from "../../compat/gpu-locality.ts";
import { selectCpuIds, socketCountsOf, socketDistOf, type CpuLayout } from "../plan/core-select.ts";
import { formatCpuList, parseCpuList } from "../../lib/cpu-list.ts";
import type { NodeAllocState } from "./state-types.ts";

export interface FreeResources {
  cpus: number;
  memMiB: number;
  gpuIndices: number[];
}

export function freeResources(node: NodeRecord): FreeResources {
  const gpuIndices: number[] = [];
  // a node without GPUs has none free: no sets to build (the scheduler asks this of every node every pass)
  if (node.info.gpuCount > 0) {
    // GPUs held whole, and GPUs shards or MPS sit on (a GPU is either, never both)
    const used = sharingBusyGpus(sharingUsedOn(node));
    for (const ids of node.gpuByJob.values()) for (const id of ids) used.add(id);
    for (let i = 0; i < node.info.gpuCount; i++) if (!used.has(i)) gpuIndices.push(i);
  }
  return {
    cpus: node.info.cpus - node.info.allocCpus,
    memMiB: node.info.realMemoryMib - node.info.allocMemoryMib,
    gpuIndices,
  };
}

/**
 * Free CPUs on each socket (CPUs split evenly over `sockets`): capacity less what jobs hold there.
 * CPUs charged without a socket (older records) are taken from the freest sockets, so the sum never exceeds the node's free CPUs.
 */
export function freeSocketCpus(node: NodeRecord): number[] {
  const sockets = Math.max(1, node.info.sockets);
  const free = new Array<number>(sockets).fill(Math.floor(node.info.cpus / sockets));
  let placed = 0;
  for (const counts of Object.values(node.socketCpusByJob ?? {})) {
    counts.forEach((c, s) => {
      if (s < sockets) free[s] = (free[s] ?? 0) - c;
      placed += c;
    });
  }
  let unplaced = Math.max(0, node.info.allocCpus - placed);
  while (unplaced > 0) {
    const s = free.indexOf(Math.max(...free));
    const take = Math.min(unplaced, free[s] ?? 0);
    if (take <= 0) break;
    free[s] = (free[s] ?? 0) - take;
    unplaced -= take;
  }
  return free.map((f) => Math.max(0, f));
}

/** True when the node may receive new work at all (not down, drained or unregistered). */
export function nodeAcceptsWork(node: NodeRecord): boolean {
  return !node.down && !node.drain && node.info.state !== "UNKNOWN" && node.info.state !== "FUTURE";
}

/** What of a job's request steers the choice of its CPU ids (from its JobSpec). */
export interface CoreSpec {
  cpusPerTask: number;
  hint?: string | undefined;
  threadsPerCore: number;
  ntasksPerSocket?: number | undefined;
  coresPerSocket?: number | undefined;
  distribution: string;
}

/**
 * Charge a share to its node. The share's CPU ids are chosen here (and written into
 * `share.cpuIds`, with `share.socketCpus` recounted from them on a multi-socket node):
 * ids the share already names are kept when all are still free (a resumed job).
 */
export function chargeAlloc(node: NodeRecord, jobId: number, share: NodeAllocState, spec?: CoreSpec): void {
  assert(share.node === node.info.name, "allocation charged to its own node");
  node.info.allocCpus += share.cpus;
  node.info.allocMemoryMib += share.memMib;
  if (share.gpuIndices.length > 0) node.gpuByJob.set(jobId, [...share.gpuIndices]);
  if (share.gres) (node.gresByJob ??= {})[String(jobId)] = share.gres;
  chooseCpuIds(node, jobId, share, spec);
  if (share.socketCpus) (node.socketCpusByJob ??= {})[String(jobId)] = parseSocketCpus(share.socketCpus);
  assert(node.info.allocCpus <= node.info.cpus, `cpus not oversubscribed on ${node.info.name}`);
  refreshNodeState(node);
}

export function releaseAlloc(node: NodeRecord, jobId: number, share: NodeAllocState): void {
  node.info.allocCpus = Math.max(0, node.info.allocCpus - share.cpus);
  node.info.allocMemoryMib = Math.max(0, node.info.allocMemoryMib - share.memMib);
  node.gpuByJob.delete(jobId);
  if (node.gresByJob !== undefined) delete node.gresByJob[String(jobId)];
  if (node.socketCpusByJob !== undefined) delete node.socketCpusByJob[String(jobId)];
  if (node.cpuIdsByJob !== undefined) delete node.cpuIdsByJob[String(jobId)];
  refreshNodeState(node);
}

export const cpuLayoutOf = (node: NodeRecord): CpuLayout => ({
  cpus: node.info.cpus, sockets: node.info.sockets, coresPerSocket: node.info.coresPerSocket, threadsPerCore: node.info.threadsPerCore,
});

function chooseCpuIds(node: NodeRecord, jobId: number, share: NodeAllocState, spec: CoreSpec | undefined): void {
  const taken = new Set<number>();
  for (const [id, cpus] of Object.entries(node.cpuIdsByJob ?? {})) if (id !== String(jobId)) for (const c of cpus) taken.add(c);
  const layout = cpuLayoutOf(node);
  const named = share.cpuIds ? parseCpuList(share.cpuIds) : [];
  const keep = named.length === share.cpus && named.every((c) => !taken.has(c) && c < layout.cpus);
  const ids = keep ? named : selectCpuIds(layout, taken, {
    count: share.cpus,
    // The scheduler's per-socket counts (GPU locality, fewest sockets) hold unless the user asked for a socket layout.
    socketCounts: asksSocketLayout(spec) ? [] : parseSocketCpus(share.socketCpus),
    tasks: Math.max(1, share.tasks),
    cpusPerTask: Math.max(1, spec?.cpusPerTask ?? 1),
    ntasksPerSocket: spec?.ntasksPerSocket ?? 0,
    coresPerSocket: spec?.coresPerSocket ?? 0,
    oneThreadPerCore: oneThreadPerCore(spec),
    socketDist: socketDistOf(spec?.distribution ?? ""),
  });
  share.cpuIds = formatCpuList(ids);
  (node.cpuIdsByJob ??= {})[String(jobId)] = ids;
  if (layout.sockets > 1) share.socketCpus = socketCpusText(socketCountsOf(layout, ids));
}

const asksSocketLayout = (spec: CoreSpec | undefined): boolean =>
  spec !== undefined && ((spec.ntasksPerSocket ?? 0) > 0 || (spec.coresPerSocket ?? 0) > 0 || (spec.distribution.split(",")[0]?.split(":")[1] ?? "") !== "");

/** --hint=nomultithread / compute_bound or --threads-per-core=1: a task uses one thread of each of its cores. */
export const oneThreadPerCore = (spec: CoreSpec | undefined): boolean =>
  spec !== undefined && (spec.hint === "nomultithread" || spec.hint === "compute_bound" || spec.threadsPerCore === 1);

/** Recompute base state, flags and gres_used from the counters; the only place that sets them. */
export function refreshNodeState(node: NodeRecord): void {
  const info = node.info;
  const flags = info.stateFlags.filter((f) => f !== "DRAIN" && f !== "NOT_RESPONDING");
  if (node.drain) flags.push("DRAIN");
  if (info.state === "UNKNOWN" && !node.down) {
    info.stateFlags = [...flags, "NOT_RESPONDING"];
    return;
  }
  if (node.down) {
    info.state = "DOWN";
    if (info.reason === "Not responding") flags.push("NOT_RESPONDING");
  } else if (info.allocCpus === 0 && node.gpuByJob.size === 0) {
    info.state = "IDLE";
  } else if (info.allocCpus >= info.cpus) {
    info.state = "ALLOCATED";
  } else {
    info.state = "MIXED";
  }
  info.stateFlags = flags;
  const gpus = [...node.gpuByJob.values()].flat().sort((a, b) => a - b);
  info.gpuAlloc = gpus;
  // Slurm prints a counted GRES in use as name[:type]:count, plain numbers (gres.c _node_gres_used).
  const generic = info.gresGeneric ? formatGresItems(genericGresUsed(node), false) : "";
  info.gresUsed = [gresUsedText(info.gpuModel, gpus, info.gpuCount, info.gres), generic].filter((t) => t !== "").join(",");
}

/** The node's generic GRES (not GPUs) as configured. */
export const genericGresTotal = (node: NodeRecord): GresItem[] => parseGresItems(node.info.gresGeneric ?? "");

/** The node's generic GRES held by jobs, item by item as configured (count 0 where none is held). */
export function genericGresUsed(node: NodeRecord): GresItem[] {
  const total = genericGresTotal(node);
  const free = genericGresFree(node);
  return total.map((g, i) => ({ name: g.name, type: g.type, count: g.count - (free[i]?.count ?? 0) }));
}

/** Units of each sharing GRES (shard, mps) the node's jobs hold, per GPU index. */
export const sharingUsedOn = (node: NodeRecord): Map<string, Map<number, number>> =>
  node.gresByJob === undefined ? new Map() : sharingByGpu(Object.values(node.gresByJob).map(parseGresItems));

/** The node's generic GRES not held by any job. */
export const genericGresFree = (node: NodeRecord): GresItem[] =>
  freeGres(genericGresTotal(node), Object.values(node.gresByJob ?? {}).map(parseGresItems));

/** "gpu:mi300x:2(IDX:0-1)"; with several types one item per type, each with the node-wide indices it holds. */
function gresUsedText(model: string, used: number[], total: number, gres: string): string {
  if (total === 0) return "";
  const types = gres.includes(",") ? gpuTypesOfGres(gres, total) : undefined;
  if (types === undefined || !mixedGpuTypes(types)) return usedItem(model, used);
  return [...new Set(types)].map((t) => usedItem(t, used.filter((g) => types[g] === t))).join(",");
}

function usedItem(type: string, used: number[]): string {
  return `gpu:${type ? `${type}:` : ""}${used.length}(IDX:${used.length === 0 ? "N/A" : compressIndices(used)})`;
}

/** 0,1,2,5 -> "0-2,5" (the form Slurm uses for GPU index lists; lives in lib so CLIs skip this module). */
export { compressIndices };
