/**
 * @module sched/plan/gres-fit
 * Counting of generic GRES (everything but GPUs) on one node: what is free once the
 * jobs' shares are charged, and which of the node's items a request takes. A typed
 * request (`--gres=bandwidth:lustre:1G`) takes only its type; an untyped one takes
 * from the node's items of that name in configuration order, as Slurm does. Counts
 * only: GPU indices, links and sockets stay with gpu-clique/gpu-sockets.
 */
import { assert } from "../../lib/assert.ts";
import type { GresItem } from "../../compat/gres-generic.ts";

const keyOf = (g: GresItem): string => `${g.name}:${g.type}`;

/** The node's items less what `held` shares take (never below 0). */
export function freeGres(total: readonly GresItem[], held: readonly (readonly GresItem[])[]): GresItem[] {
  const used = new Map<string, number>();
  for (const share of held) for (const g of share) used.set(keyOf(g), (used.get(keyOf(g)) ?? 0) + g.count);
  return total.map((g) => ({ ...g, count: g.noConsume ? g.count : Math.max(0, g.count - (used.get(keyOf(g)) ?? 0)) }));
}

/** `pool` with `shares` added back (the view of a node once those shares end), capped at `total`. */
export function releaseGres(pool: readonly GresItem[], total: readonly GresItem[], shares: readonly (readonly GresItem[])[]): GresItem[] {
  const back = new Map<string, number>();
  for (const share of shares) for (const g of share) back.set(keyOf(g), (back.get(keyOf(g)) ?? 0) + g.count);
  return pool.map((g) => {
    const cap = total.find((t) => keyOf(t) === keyOf(g))?.count ?? g.count;
    return { ...g, count: Math.min(cap, g.count + (back.get(keyOf(g)) ?? 0)) };
  });
}

/**
 * The items a request takes from `pool` (one entry per node item touched, typed as the
 * node's item), or undefined when the pool cannot hold every request.
 */
export function takeGres(wanted: readonly GresItem[], pool: readonly GresItem[]): GresItem[] | undefined {
  const left = pool.map((g) => ({ ...g }));
  const taken = new Map<string, GresItem>();
  let shared = 0;
  for (const w of wanted) {
    let need = w.count;
    for (const g of left) {
      if (need === 0) break;
      if (g.name !== w.name || (w.type !== "" && g.type !== w.type) || g.count === 0) continue;
      // no_consume: served while the node has that many, nothing held
      if (g.noConsume) {
        if (g.count >= need) {
          shared += need;
          need = 0;
        }
        continue;
      }
      const take = Math.min(need, g.count);
      g.count -= take;
      need -= take;
      const got = taken.get(keyOf(g));
      if (got) got.count += take;
      else taken.set(keyOf(g), { name: g.name, type: g.type, count: take });
    }
    if (need > 0) return undefined;
  }
  const out = [...taken.values()];
  assert(out.every((g) => g.count > 0), "a taken item holds a positive count");
  assert(
    wanted.reduce((s, w) => s + w.count, 0) === shared + out.reduce((s, g) => s + g.count, 0),
    "the share takes exactly what was asked",
  );
  return out;
}

/** Whether some node item could ever serve `w` (name, and type when given). */
export const gresKnownOn = (w: GresItem, total: readonly GresItem[]): boolean =>
  total.some((g) => g.name === w.name && (w.type === "" || g.type === w.type));

/** GRES that share a GPU (gres.html: MPS, Sharding): counted per GPU, a request served by one GPU. */
export const SHARING_GRES = new Set(["mps", "shard"]);

/**
 * Whether each sharing request (mps, shard) fits on one GPU of a node with `gpuCount` GPUs:
 * Slurm spreads the node's count evenly over its GPUs and, by default, serves a job's
 * request per node from a single GPU (gres.html), so `--gres=mps:150` never fits a node
 * with Gres=gpu:2,mps:200. Nodes without GPUs count them as plain GRES.
 */
export function sharingFitsOneGpu(wanted: readonly GresItem[], total: readonly GresItem[], gpuCount: number): boolean {
  if (gpuCount <= 0) return true;
  return wanted.every((w) => {
    if (!SHARING_GRES.has(w.name)) return true;
    const perGpu = Math.floor(total.reduce((s, g) => s + (g.name === w.name ? g.count : 0), 0) / gpuCount);
    return w.count <= perGpu;
  });
}
