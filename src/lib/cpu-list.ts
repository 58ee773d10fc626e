/**
 * @module lib/cpu-list
 * CPU lists ("0-3,8") and the choice of a job's cores on this node (pure).
 * The controller decides how many CPUs a job gets per node (and, when it knows
 * the node's sockets, how many on each socket); the agent picks which ones:
 * on each socket the free cores local to the job's GPUs first, then the lowest
 * free ids (pickCpusNear), then maps them onto the host's CPUs. When a node is configured with more CPUs than the
 * host has (local clusters run many nodes on one host), configured CPU i runs
 * on host CPU i mod (host CPU count), so a job still sees exactly its share of
 * distinct host CPUs whenever its count is at most the host's.
 */
import { assert } from "./assert.ts";

/** "0-2,5" → [0,1,2,5]; invalid pieces are skipped. */
export function parseCpuList(text: string): number[] {
  const out: number[] = [];
  for (const piece of text.trim().split(",")) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(piece.trim());
    if (m === null) continue;
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    for (let i = lo; i <= hi && i - lo < 65_536; i++) out.push(i);
  }
  return out;
}

/** [0,1,2,5] → "0-2,5" (sorted, duplicates dropped). */
export function formatCpuList(ids: readonly number[]): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}

/**
 * The lowest `count` configured CPU ids of a node with `nodeCpus` CPUs that are not in `taken`.
 * Returns fewer when the node has fewer free (the controller should never ask for that).
 */
export function pickCpus(count: number, nodeCpus: number, taken: ReadonlySet<number>): number[] {
  assert(count >= 0 && nodeCpus >= 0, "CPU counts are never negative");
  const out: number[] = [];
  for (let id = 0; id < nodeCpus && out.length < count; id++) if (!taken.has(id)) out.push(id);
  assert(out.length <= count, "never more CPUs than asked");
  return out;
}

/** Where the controller wants a share's CPUs, and which cores are local to its GPUs. */
export interface CpuPlacement {
  /** CPUs per socket (index = socket; CPUs split evenly over the sockets); empty = any socket. */
  socketCpus: readonly number[];
  /** Configured CPU ids local to the share's GPUs (gres.conf Cores= or discovery). */
  localCpus: readonly number[];
}

/**
 * `count` free CPU ids placed as the controller counted them per socket, GPU-local cores first
 * within each socket, lowest ids next. When a socket has fewer free ids here than the controller
 * counted (its view was stale), the rest comes from local cores, then the lowest free ids: the job
 * never gets fewer CPUs than it was allocated while the node has them free.
 */
export function pickCpusNear(count: number, nodeCpus: number, taken: ReadonlySet<number>, where: CpuPlacement): number[] {
  const local = new Set(where.localCpus);
  const sockets = where.socketCpus.length;
  const perSocket = sockets > 0 ? Math.floor(nodeCpus / sockets) : nodeCpus;
  const chosen = new Set<number>();
  const byPreference = (ids: number[]): number[] => [...ids.filter((c) => local.has(c)), ...ids.filter((c) => !local.has(c))];
  const free = (lo: number, hi: number): number[] => {
    const out: number[] = [];
    for (let id = lo; id < hi; id++) if (!taken.has(id) && !chosen.has(id)) out.push(id);
    return out;
  };
  for (let s = 0; s < sockets; s++) {
    for (const id of byPreference(free(s * perSocket, (s + 1) * perSocket)).slice(0, where.socketCpus[s] ?? 0)) chosen.add(id);
  }
  for (const id of byPreference(free(0, nodeCpus)).slice(0, Math.max(0, count - chosen.size))) chosen.add(id);
  const out = [...chosen].slice(0, count).sort((a, b) => a - b);
  assert(out.length <= count && out.every((c) => !taken.has(c)), "never more CPUs than asked, never a taken one");
  return out;
}

/** Configured CPU ids → the host CPUs they run on (see the module comment). */
export function hostCpusFor(configured: readonly number[], hostCpus: readonly number[]): number[] {
  if (hostCpus.length === 0) return [];
  return [...new Set(configured.map((id) => hostCpus[id % hostCpus.length] ?? 0))].sort((a, b) => a - b);
}
