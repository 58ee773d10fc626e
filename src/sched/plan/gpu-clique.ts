/**
 * @module sched/plan/gpu-clique
 * GPU choice inside one node: the best-connected free set (devices/best-gpu-set:
 * highest worst link, then highest total, then lowest indices) and its worst
 * link, which node choice compares across nodes. Without a declared or
 * discovered topology every pair is equal and the lowest free indices win,
 * which is what Slurm does.
 */
import { bestGpuSet } from "../../devices/best-gpu-set.ts";
import type { LinkMatrix } from "../../devices/inventory.ts";
import { assert } from "../../lib/assert.ts";

export interface GpuPick {
  indices: number[];
  /** Worst pairwise link quality in the set; 0 for fewer than two GPUs or no topology. */
  minQuality: number;
  totalQuality: number;
}

/** `count` GPUs from `free`; undefined when fewer are free. */
export function pickGpus(links: LinkMatrix | undefined, free: readonly number[], count: number): GpuPick | undefined {
  if (count > free.length) return undefined;
  if (links === undefined || count <= 1 || links.size < Math.max(...free) + 1) {
    const indices = [...free].sort((a, b) => a - b).slice(0, count);
    return { indices, minQuality: 0, totalQuality: 0 };
  }
  const choice = bestGpuSet(links, free, count);
  assert(choice !== undefined && choice.indices.length === count, "bestGpuSet returns a full set when enough GPUs are free");
  return { indices: choice.indices, minQuality: choice.minQuality, totalQuality: choice.totalQuality };
}
