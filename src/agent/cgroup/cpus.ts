/**
 * @module agent/cgroup/cpus
 * CPU lists ("0-3,8") and the choice of a job's cores on this node (pure).
 * The controller decides how many CPUs a job gets per node; the agent picks
 * which ones: the lowest configured CPU ids no running job holds, then maps
 * them onto the host's CPUs. When a node is configured with more CPUs than the
 * host has (local clusters run many nodes on one host), configured CPU i runs
 * on host CPU i mod (host CPU count), so a job still sees exactly its share of
 * distinct host CPUs whenever its count is at most the host's.
 */
import { assert } from "../../lib/assert.ts";

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

/** Configured CPU ids → the host CPUs they run on (see the module comment). */
export function hostCpusFor(configured: readonly number[], hostCpus: readonly number[]): number[] {
  if (hostCpus.length === 0) return [];
  return [...new Set(configured.map((id) => hostCpus[id % hostCpus.length] ?? 0))].sort((a, b) => a - b);
}
