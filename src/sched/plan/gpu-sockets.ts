/**
 * @module sched/plan/gpu-sockets
 * Socket-aware choice of a node share's GPUs and CPU counts (pure).
 * A GPU's socket is the socket holding most of its local CPUs (gres.conf
 * `Cores=` or discovery); CPU id c of a node with C CPUs on S sockets lies on
 * socket floor(c / (C / S)), Slurm's logical numbering. The controller counts
 * CPUs per socket (NodeAlloc.socketCpus); the agent then picks core ids on
 * those sockets, GPU-local cores first.
 * - `--gres-flags=enforce-binding`: every CPU of the share is on a socket of
 *   one of its GPUs (GPUs of unknown locality bind to any socket), or it does
 *   not fit here.
 * - `--gpus-per-socket=N` with `--sockets-per-node=K`: K sockets, N free GPUs
 *   on each, the CPUs on those K sockets.
 * - otherwise the fewest sockets whose free CPUs hold the share's CPUs are
 *   preferred, when that costs no GPU link quality (a preference, never a rule).
 */
import type { LinkMatrix } from "../../devices/inventory.ts";
import { pickGpus } from "./gpu-clique.ts";
import { assert } from "../../lib/assert.ts";

/** What a node view knows about its sockets. */
export interface SocketLayout {
  /** Socket count (≥ 1); CPUs are split evenly among them. */
  count: number;
  /** Socket of each GPU (index = GPU index); -1 = locality unknown. */
  gpuSocket: number[];
  /** Free CPUs on each socket now; absent = not tracked (then only the node's total counts). */
  freeCpus?: number[] | undefined;
}

export interface SocketRules {
  enforceBinding: boolean;
  /** --gpus-per-socket (0 = none). */
  gpusPerSocket: number;
  /** --sockets-per-node (0 = any). */
  socketsPerNode: number;
}

export interface SocketPick {
  gpuIndices: number[];
  /** CPUs on each socket, index = socket. */
  socketCpus: number[];
  quality: number;
}

/**
 * GPUs and per-socket CPU counts for one share, or undefined when the rules cannot be met
 * with these free resources. `socketFree` is the free CPUs per socket (capacity for "ever").
 */
export function placeOnSockets(
  layout: SocketLayout, socketFree: readonly number[], links: LinkMatrix | undefined, freeGpus: readonly number[],
  gpus: number, cpus: number, rules: SocketRules,
): SocketPick | undefined {
  const n = layout.count;
  assert(socketFree.length === n, "a free count for every socket");
  if (rules.socketsPerNode > n) return undefined;
  const onSocket = (s: number): number[] => freeGpus.filter((g) => (layout.gpuSocket[g] ?? -1) === s);
  const anywhere = freeGpus.filter((g) => (layout.gpuSocket[g] ?? -1) < 0);
  // GPUs of unknown locality belong to no socket: on such a node --gpus-per-socket is a count per node.
  const located = layout.gpuSocket.some((s) => s >= 0);
  if (rules.gpusPerSocket > 0 && located) return perSocket(n, socketFree, links, onSocket, cpus, rules);
  const loose = gpus > 0 ? pickGpus(links, freeGpus, gpus) : { indices: [], minQuality: 0 };
  if (loose === undefined) return undefined;
  // Fast path (most shares: CPU-only jobs, or GPUs of unknown locality): only the CPUs need sockets.
  if (gpus === 0 || loose.indices.every((g) => (layout.gpuSocket[g] ?? -1) < 0)) {
    const total = socketFree.reduce((t, f) => t + f, 0);
    if (total < cpus) return undefined;
    const single = bestSingleSocket(socketFree, cpus);
    const where = single >= 0 ? [single] : Array.from({ length: n }, (_, s) => s);
    return { gpuIndices: loose.indices, socketCpus: spread(where, socketFree, cpus, n, [], layout), quality: loose.minQuality };
  }
  let best: SocketPick | undefined;
  // Fewest sockets first: the first size with a fitting subset wins; among its subsets, the best links.
  for (let size = 1; size <= n && best === undefined; size++) {
    for (const subset of subsetsOfSize(n, size)) {
      const room = subset.reduce((t, s) => t + (socketFree[s] ?? 0), 0);
      if (room < cpus) continue;
      const pool = [...subset.flatMap(onSocket), ...anywhere].sort((a, b) => a - b);
      const pick = gpus > 0 ? pickGpus(links, pool, gpus) : { indices: [], minQuality: 0 };
      if (pick === undefined) continue;
      if (!rules.enforceBinding && pick.minQuality < loose.minQuality) continue; // preference only: never worse links
      // The CPUs go on the sockets of the GPUs picked (any socket of the subset when one has unknown locality).
      const bound = pick.indices.some((g) => (layout.gpuSocket[g] ?? -1) < 0) || gpus === 0
        ? subset
        : subset.filter((s) => pick.indices.some((g) => layout.gpuSocket[g] === s));
      if (bound.reduce((t, s) => t + (socketFree[s] ?? 0), 0) < cpus) continue;
      const counts = spread(bound, socketFree, cpus, n, pick.indices, layout);
      if (best === undefined || pick.minQuality > best.quality) best = { gpuIndices: pick.indices, socketCpus: counts, quality: pick.minQuality };
    }
  }
  if (best !== undefined || rules.enforceBinding) return best;
  // No socket set holds the CPUs next to the GPUs: take the best GPUs, CPUs where they are free.
  const all = Array.from({ length: n }, (_, s) => s);
  if (socketFree.reduce((t, f) => t + f, 0) < cpus) return undefined;
  return { gpuIndices: loose.indices, socketCpus: spread(all, socketFree, cpus, n, loose.indices, layout), quality: loose.minQuality };
}

/** The socket that holds `cpus` with the least room left (best fit), or -1 when none does alone. */
function bestSingleSocket(socketFree: readonly number[], cpus: number): number {
  let best = -1;
  socketFree.forEach((f, s) => {
    if (f >= cpus && (best < 0 || f < (socketFree[best] ?? 0))) best = s;
  });
  return best;
}

/** --gpus-per-socket: K sockets with N free GPUs each and room for the CPUs. */
function perSocket(
  n: number, socketFree: readonly number[], links: LinkMatrix | undefined, onSocket: (s: number) => number[], cpus: number, rules: SocketRules,
): SocketPick | undefined {
  const size = Math.max(1, rules.socketsPerNode);
  let best: SocketPick | undefined;
  for (const subset of subsetsOfSize(n, size)) {
    if (subset.reduce((t, s) => t + (socketFree[s] ?? 0), 0) < cpus) continue;
    const indices: number[] = [];
    let quality = Number.POSITIVE_INFINITY;
    for (const s of subset) {
      const pick = pickGpus(links, onSocket(s), rules.gpusPerSocket);
      if (pick === undefined) {
        quality = -1;
        break;
      }
      indices.push(...pick.indices);
      quality = Math.min(quality, pick.minQuality);
    }
    if (quality < 0) continue;
    const q = Number.isFinite(quality) ? quality : 0;
    if (best === undefined || q > best.quality) {
      best = { gpuIndices: indices.sort((a, b) => a - b), socketCpus: spreadEvenly(subset, socketFree, cpus, n), quality: q };
    }
  }
  return best;
}

/** CPU counts per socket: the sockets of the GPUs first (most GPUs first), then the freest; never over a socket's free CPUs. */
function spread(subset: readonly number[], socketFree: readonly number[], cpus: number, n: number, gpus: readonly number[], layout: SocketLayout): number[] {
  const gpusOn = (s: number): number => gpus.filter((g) => layout.gpuSocket[g] === s).length;
  const order = [...subset].sort((a, b) => gpusOn(b) - gpusOn(a) || (socketFree[b] ?? 0) - (socketFree[a] ?? 0) || a - b);
  const counts = new Array<number>(n).fill(0);
  let left = cpus;
  for (const s of order) {
    const take = Math.min(left, socketFree[s] ?? 0);
    counts[s] = take;
    left -= take;
  }
  assert(left === 0, "the subset holds the share's CPUs");
  return counts;
}

/** CPU counts per socket, round-robin over the subset (--sockets-per-node: every socket asked for gets CPUs). */
function spreadEvenly(subset: readonly number[], socketFree: readonly number[], cpus: number, n: number): number[] {
  const counts = new Array<number>(n).fill(0);
  let left = cpus;
  while (left > 0) {
    let progressed = false;
    for (const s of subset) {
      if (left > 0 && (counts[s] ?? 0) < (socketFree[s] ?? 0)) {
        counts[s] = (counts[s] ?? 0) + 1;
        left--;
        progressed = true;
      }
    }
    assert(progressed, "the subset holds the share's CPUs");
  }
  return counts;
}

/** Subsets of {0..n-1} with `size` members, in lexicographic order (n is a socket count: small). */
function* subsetsOfSize(n: number, size: number): Generator<number[]> {
  const pick: number[] = [];
  function* rec(from: number): Generator<number[]> {
    if (pick.length === size) {
      yield [...pick];
      return;
    }
    for (let s = from; s <= n - (size - pick.length); s++) {
      pick.push(s);
      yield* rec(s + 1);
      pick.pop();
    }
  }
  yield* rec(0);
}
