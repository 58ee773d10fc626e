/**
 * @module compat/task-layout
 * Which global task ranks of a step run on which node, from the first level of
 * --distribution (pure). The controller fixes how many tasks each node runs;
 * this only numbers them: block (default; also arbitrary) gives each node
 * consecutive ranks, cyclic deals ranks out one node at a time, plane=N deals
 * out blocks of N. A node that has all its tasks is skipped in the deal.
 */
import { assert } from "../lib/assert.ts";

export function taskRanks(tasksPerNode: readonly number[], distribution: string): number[][] {
  const first = (distribution.split(",")[0] ?? "").split(":")[0]?.toLowerCase() ?? "";
  const plane = /^plane=(\d+)$/.exec(first);
  const chunk = first === "cyclic" ? 1 : plane ? Math.max(1, Number(plane[1])) : 0;
  const total = tasksPerNode.reduce((a, b) => a + b, 0);
  const out = tasksPerNode.map((): number[] => []);
  if (chunk === 0) {
    let rank = 0;
    tasksPerNode.forEach((n, i) => {
      for (let k = 0; k < n; k++) out[i]?.push(rank++);
    });
    return out;
  }
  let rank = 0;
  while (rank < total) {
    for (let i = 0; i < tasksPerNode.length && rank < total; i++) {
      const room = (tasksPerNode[i] ?? 0) - (out[i]?.length ?? 0);
      for (let k = 0; k < Math.min(chunk, room); k++) out[i]?.push(rank++);
    }
  }
  assert(out.every((r, i) => r.length === tasksPerNode[i]), "every node gets exactly its task count");
  return out;
}

/** -m arbitrary: the host list (with repeats) gives task i to host i. */
export const isArbitrary = (distribution: string): boolean => /^arbitrary/i.test(distribution);

/** -m arbitrary: each node's global ranks, from the hosts in task order (task i on hosts[i]). */
export function arbitraryRanks(nodeNames: readonly string[], hosts: readonly string[]): number[][] {
  const out = nodeNames.map((node) => hosts.flatMap((h, rank) => (h === node ? [rank] : [])));
  assert(out.reduce((n, r) => n + r.length, 0) <= hosts.length, "each task is ranked once");
  return out;
}
