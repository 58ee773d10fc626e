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
  // Nodes of one model share one matrix object (gpu-topology's parse cache) and often the same
  // free pattern, so a pass over many nodes mostly hits this memo. Pure: the answer depends only on the key.
  let memo = memoByMatrix.get(links);
  if (memo === undefined) {
    memo = new Map();
    memoByMatrix.set(links, memo);
  }
  const key = `${count}|${free.join(",")}`;
  const known = memo.get(key);
  if (known !== undefined) return { ...known, indices: [...known.indices] };
  const choice = bestGpuSet(links, free, count);
  assert(choice !== undefined && choice.indices.length === count, "bestGpuSet returns a full set when enough GPUs are free");
  const pick = { indices: choice.indices, minQuality: choice.minQuality, totalQuality: choice.totalQuality };
  if (memo.size >= PICK_MEMO_MAX) memo.clear();
  memo.set(key, pick);
  return { ...pick, indices: [...pick.indices] };
}

const memoByMatrix = new WeakMap<LinkMatrix, Map<string, GpuPick>>();
/** Entries kept per matrix before the memo starts over (bounded memory). */
const PICK_MEMO_MAX = 4096;
