/**
 * @module sched/plan/gpu-clique
 * GPU choice inside one node: the best-connected free set (highest worst link,
 * then highest total), and among equally good sets the one that leaves the
 * remaining free GPUs best connected (a 1-GPU job takes the lone GPU, not one of
 * a free pair), then the lowest indices. Small nodes are searched exhaustively;
 * big ones use devices/best-gpu-set. Without a declared or discovered topology,
 * or on a fully connected node, the lowest free indices win, as in Slurm.
 */
import { bestGpuSet } from "../../devices/best-gpu-set.ts";
import type { LinkMatrix } from "../../devices/inventory.ts";
import { assert } from "../../lib/assert.ts";
import { pairQuality } from "../../devices/link-matrix.ts";

export interface GpuPick {
  indices: number[];
  /** Worst pairwise link quality in the set; 0 for fewer than two GPUs or no topology. */
  minQuality: number;
  totalQuality: number;
}

/** `count` GPUs from `free`; undefined when fewer are free. */
export function pickGpus(links: LinkMatrix | undefined, free: readonly number[], count: number): GpuPick | undefined {
  if (count > free.length) return undefined;
  if (count === 0) return { indices: [], minQuality: 0, totalQuality: 0 }; // what the general case below gives, without copying `free`
  if (links === undefined || count === 0 || links.size < Math.max(...free) + 1) {
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
  const sorted = [...free].sort((a, b) => a - b);
  let pick: GpuPick;
  if (combinations(sorted.length, count) <= EXHAUSTIVE_SETS_MAX) pick = exhaustive(links, sorted, count);
  else {
    const choice = bestGpuSet(links, sorted, count);
    assert(choice !== undefined && choice.indices.length === count, "bestGpuSet returns a full set when enough GPUs are free");
    pick = { indices: choice.indices, minQuality: choice.minQuality, totalQuality: choice.totalQuality };
  }
  if (memo.size >= PICK_MEMO_MAX) memo.clear();
  memo.set(key, pick);
  return { ...pick, indices: [...pick.indices] };
}

/** Sets compared one by one below this count (C(8,4) = 70, C(16,8) = 12870). */
const EXHAUSTIVE_SETS_MAX = 5000;

function combinations(n: number, k: number): number {
  let c = 1;
  for (let i = 0; i < k; i++) c = (c * (n - i)) / (i + 1);
  return c;
}

/** Every `count`-subset of `free` (ascending): best (min, total), then best-connected remainder, then lowest indices. */
function exhaustive(links: LinkMatrix, free: number[], count: number): GpuPick {
  const q = free.map((a) => free.map((b) => (a === b ? 0 : pairQuality(links, a, b))));
  const n = free.length;
  let best: { picks: number[]; min: number; total: number; rest: number } | undefined;
  const picks: number[] = [];
  const chosen = new Array<boolean>(n).fill(false);
  const visit = (from: number): void => {
    if (picks.length === count) {
      let min = Number.POSITIVE_INFINITY;
      let total = 0;
      let rest = 0;
      for (let a = 0; a < n; a++) {
        for (let b = a + 1; b < n; b++) {
          if (chosen[a] && chosen[b]) {
            min = Math.min(min, q[a]![b]!);
            total += q[a]![b]!;
          } else if (!chosen[a] && !chosen[b]) rest += q[a]![b]!;
        }
      }
      if (count < 2) min = 0;
      // Combinations come in lexicographic order, so only a strictly better set replaces the first found.
      if (best === undefined || min > best.min || (min === best.min && (total > best.total || (total === best.total && rest > best.rest)))) {
        best = { picks: [...picks], min, total, rest };
      }
      return;
    }
    for (let i = from; i <= n - (count - picks.length); i++) {
      picks.push(i);
      chosen[i] = true;
      visit(i + 1);
      chosen[i] = false;
      picks.pop();
    }
  };
  visit(0);
  assert(best !== undefined && best.picks.length === count, "some set of the requested size exists");
  return { indices: best.picks.map((i) => free[i]!), minQuality: best.min, totalQuality: best.total };
}

const memoByMatrix = new WeakMap<LinkMatrix, Map<string, GpuPick>>();
/** Entries kept per matrix before the memo starts over (bounded memory). */
const PICK_MEMO_MAX = 4096;
