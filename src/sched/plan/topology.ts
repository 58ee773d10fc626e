/**
 * @module sched/plan/topology
 * Multi-node placement over the network topology (topology.conf): the job goes
 * under the lowest switch level that can hold it; at that level, the switch (or
 * block) it fills best, so that big empty groups stay whole for big jobs. Also
 * counts the leaf switches an allocation spans, for `--switches=N`.
 */
import type { NetworkTopology } from "../../compat/conf/topology-conf.ts";
import type { NodeAllocState } from "../model/state-types.ts";
/** What a candidate must tell about itself: its node's name (fit-node's Capacity is one). */
interface Candidate {
  node: { name: string };
}

/** Best placement under one switch, lowest level first; undefined when no single switch holds the job. */
export function fitUnderSwitches<C extends Candidate>(
  topology: NetworkTopology, candidates: C[], fit: (subset: C[]) => NodeAllocState[] | undefined,
): NodeAllocState[] | undefined {
  let level = -1;
  let best: { alloc: NodeAllocState[]; spare: number } | undefined;
  for (const group of topology.groups) {
    if (best !== undefined && group.level > level) break;
    const members = new Set(group.nodes);
    const subset = candidates.filter((c) => members.has(c.node.name));
    if (subset.length === 0) continue;
    const alloc = fit(subset);
    if (alloc === undefined) continue;
    // Spare = usable nodes of the group the job leaves unused: fewer means a tighter fit.
    const spare = subset.length - alloc.length;
    if (best === undefined || spare < best.spare) {
      best = { alloc, spare };
      level = group.level;
    }
  }
  return best?.alloc;
}

/** Leaf switches (or blocks) the nodes sit under; a node outside the topology counts as its own. */
export function leafSwitchCount(topology: NetworkTopology | undefined, nodes: readonly string[]): number {
  if (topology === undefined) return nodes.length > 0 ? 1 : 0;
  return new Set(nodes.map((n) => topology.leafOf.get(n) ?? `node:${n}`)).size;
}

/** Level of the lowest switch above all `nodes` (0 = one leaf); Infinity when none holds them all. */
export function lowestSwitchLevel(topology: NetworkTopology, nodes: readonly string[]): number {
  let level = Number.POSITIVE_INFINITY;
  for (const g of topology.groups) if (nodes.every((n) => g.nodes.includes(n))) level = Math.min(level, g.level);
  return level;
}
