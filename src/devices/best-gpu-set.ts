/**
 * @module devices/best-gpu-set
 * Chooses `count` GPUs among the free ones so the set is as tightly connected as
 * possible: maximise the worst pairwise link quality, then the sum over all pairs,
 * then prefer the lowest indices. Exact branch-and-bound within a step budget,
 * a greedy fallback beyond it (flagged `exact: false`). Pure; placement calls it.
 */
import { assert } from "../lib/assert.ts";
import type { LinkMatrix } from "./inventory.ts";
import { pairQuality } from "./link-matrix.ts";

export interface GpuSetChoice {
  /** Chosen GPU indices, ascending. */
  indices: number[];
  /** Worst link quality among chosen pairs; 0 for sets of fewer than two GPUs. */
  minQuality: number;
  /** Sum of link quality over all chosen pairs. */
  totalQuality: number;
  /** false when the search budget ran out and the greedy answer (or the best found so far) was used. */
  exact: boolean;
}

/** Search nodes visited before giving up exactness (C(16,8) = 12870 is far below it). */
export const GPU_SET_SEARCH_STEPS_MAX = 200_000;

interface Scored {
  picks: number[];
  min: number;
  total: number;
}

/** Negative when `a` is the better set: higher min, then higher total, then lexicographically lower picks. */
function compareScored(a: Scored, b: Scored): number {
  if (a.min !== b.min) return b.min - a.min;
  if (a.total !== b.total) return b.total - a.total;
  for (let i = 0; i < Math.min(a.picks.length, b.picks.length); i++) {
    if (a.picks[i] !== b.picks[i]) return a.picks[i]! - b.picks[i]!;
  }
  return 0;
}

function scoreOf(picks: number[], q: number[][]): Scored {
  let min = Number.POSITIVE_INFINITY;
  let total = 0;
  for (let i = 0; i < picks.length; i++) {
    for (let j = i + 1; j < picks.length; j++) {
      const v = q[picks[i]!]![picks[j]!]!;
      min = Math.min(min, v);
      total += v;
    }
  }
  return { picks: [...picks].sort((x, y) => x - y), min: picks.length < 2 ? 0 : min, total };
}

/** Greedy: from every seed, add the GPU that keeps the worst link best (then the sum); keep the best result. */
function greedy(n: number, count: number, q: number[][]): Scored {
  let best: Scored | undefined;
  for (let seed = 0; seed < n; seed++) {
    const picks = [seed];
    while (picks.length < count) {
      let pick = -1;
      let pickMin = -1;
      let pickSum = -1;
      for (let c = 0; c < n; c++) {
        if (picks.includes(c)) continue;
        const vals = picks.map((p) => q[p]![c]!);
        const m = Math.min(...vals);
        const s = vals.reduce((x, y) => x + y, 0);
        if (m > pickMin || (m === pickMin && s > pickSum)) [pick, pickMin, pickSum] = [c, m, s];
      }
      picks.push(pick);
    }
    const scored = scoreOf(picks, q);
    if (best === undefined || compareScored(scored, best) < 0) best = scored;
  }
  assert(best !== undefined, "greedy runs from at least one seed");
  return best;
}

/** Exact search over combinations in lexicographic order; undefined when the step budget ran out. */
function branchAndBound(n: number, count: number, q: number[][], stepsMax: number): { best: Scored | undefined; complete: boolean } {
  const maxQ = Math.max(0, ...q.flat());
  const pairsFull = (count * (count - 1)) / 2;
  let best: Scored | undefined;
  let steps = 0;
  const picks: number[] = [];
  const visit = (from: number, min: number, total: number): boolean => {
    if (++steps > stepsMax) return false;
    if (picks.length === count) {
      const scored = { picks: [...picks], min: count < 2 ? 0 : min, total };
      if (best === undefined || compareScored(scored, best) < 0) best = scored;
      return true;
    }
    const chosen = picks.length;
    const upperMin = chosen < 2 ? maxQ : Math.min(min, maxQ);
    const upperTotal = total + (pairsFull - (chosen * (chosen - 1)) / 2) * maxQ;
    // Anything found later in lexicographic order must be strictly better to win.
    if (best !== undefined && (upperMin < best.min || (upperMin === best.min && upperTotal <= best.total))) return true;
    for (let c = from; c <= n - (count - chosen); c++) {
      let m = min;
      let t = total;
      for (const p of picks) {
        m = Math.min(m, q[p]![c]!);
        t += q[p]![c]!;
      }
      picks.push(c);
      const going = visit(c + 1, m, t);
      picks.pop();
      if (!going) return false;
    }
    return true;
  };
  const complete = visit(0, Number.POSITIVE_INFINITY, 0);
  return { best, complete };
}

/** Best `count` GPUs from `freeIndices` by link quality in `matrix`; undefined when fewer are free. */
export function bestGpuSet(matrix: LinkMatrix, freeIndices: readonly number[], count: number, stepsMax = GPU_SET_SEARCH_STEPS_MAX): GpuSetChoice | undefined {
  const free = [...new Set(freeIndices)].filter((i) => Number.isInteger(i) && i >= 0 && i < matrix.size).sort((a, b) => a - b);
  if (!Number.isInteger(count) || count < 0 || count > free.length) return undefined;
  if (count <= 1) return { indices: free.slice(0, count), minQuality: 0, totalQuality: 0, exact: true };
  const q = free.map((a) => free.map((b) => (a === b ? 0 : pairQuality(matrix, a, b))));
  const searched = branchAndBound(free.length, count, q, stepsMax);
  let chosen = searched.best;
  if (!searched.complete) {
    const g = greedy(free.length, count, q);
    if (chosen === undefined || compareScored(g, chosen) < 0) chosen = g;
  }
  assert(chosen !== undefined && chosen.picks.length === count, "a set of the requested size is chosen");
  const indices = chosen.picks.map((p) => free[p]!).sort((a, b) => a - b);
  assert(new Set(indices).size === count, "chosen GPUs are distinct");
  return { indices, minQuality: chosen.min, totalQuality: chosen.total, exact: searched.complete };
}
