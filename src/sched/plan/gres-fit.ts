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
    return w.count <= sharingPerGpu(w.name, total, gpuCount);
  });
}

/** Units of each sharing GRES held per GPU index, from the jobs' shares (items with a GPU index). */
export function sharingByGpu(held: readonly (readonly GresItem[])[]): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  for (const share of held) {
    for (const g of share) {
      if (g.gpu === undefined) continue;
      const perGpu = out.get(g.name) ?? new Map<number, number>();
      perGpu.set(g.gpu, (perGpu.get(g.gpu) ?? 0) + g.count);
      out.set(g.name, perGpu);
    }
  }
  return out;
}

/** GPUs some sharing GRES sits on: not free for whole-GPU requests (gres.html: a GPU is one or the other). */
export function sharingBusyGpus(used: ReadonlyMap<string, ReadonlyMap<number, number>>): Set<number> {
  const out = new Set<number>();
  for (const perGpu of used.values()) for (const [gpu, units] of perGpu) if (units > 0) out.add(gpu);
  return out;
}

/** Each GPU's share of the node's count of sharing GRES `name` (spread evenly, as gres.html describes). */
export const sharingPerGpu = (name: string, total: readonly GresItem[], gpuCount: number): number =>
  gpuCount > 0 ? Math.floor(gresTotal(total, name) / gpuCount) : 0;

const gresTotal = (items: readonly GresItem[], name: string): number => items.reduce((s, g) => s + (g.name === name ? g.count : 0), 0);

/**
 * The GPU `count` units of sharing GRES `name` go on: among `usable` GPUs (free, or already
 * shared), the one with the least room that still holds them (so shares pack and whole GPUs
 * stay free), lowest index among equals; undefined when none has room.
 */
export function pickSharingGpu(count: number, perGpu: number, usable: readonly number[], used: ReadonlyMap<number, number> | undefined): number | undefined {
  let best: number | undefined;
  let bestRoom = Number.POSITIVE_INFINITY;
  for (const gpu of [...usable].sort((a, b) => a - b)) {
    const room = perGpu - (used?.get(gpu) ?? 0);
    if (room >= count && room < bestRoom) {
      best = gpu;
      bestRoom = room;
    }
  }
  return best;
}

/** Sharing units per GPU index, by GRES name. */
export type SharingUse = Map<string, Map<number, number>>;

const copyUse = (used: ReadonlyMap<string, ReadonlyMap<number, number>> | undefined): SharingUse =>
  new Map([...(used ?? new Map<string, Map<number, number>>())].map(([n, m]) => [n, new Map(m)]));

/** `used` with a share's items added, as a new map. */
export function addSharing(used: ReadonlyMap<string, ReadonlyMap<number, number>> | undefined, items: readonly GresItem[]): SharingUse {
  const out = copyUse(used);
  for (const [name, perGpu] of sharingByGpu([items])) {
    const mine = out.get(name) ?? new Map<number, number>();
    for (const [gpu, units] of perGpu) mine.set(gpu, (mine.get(gpu) ?? 0) + units);
    out.set(name, mine);
  }
  return out;
}

/** `used` once `shares` (their items) end, and the GPUs left with no sharing (free again for whole use). */
export function releaseSharing(used: ReadonlyMap<string, ReadonlyMap<number, number>> | undefined, shares: readonly (readonly GresItem[])[]): { used: SharingUse; freed: number[] } {
  const out = copyUse(used);
  const touched = new Set<number>();
  for (const g of shares.flat()) {
    const perGpu = g.gpu === undefined ? undefined : out.get(g.name);
    if (perGpu === undefined || g.gpu === undefined) continue;
    perGpu.set(g.gpu, Math.max(0, (perGpu.get(g.gpu) ?? 0) - g.count));
    touched.add(g.gpu);
  }
  const freed = [...touched].filter((gpu) => [...out.values()].every((m) => (m.get(gpu) ?? 0) === 0));
  return { used: out, freed };
}

/** What placeSharing reads of a node view (fit-node's NodeView). */
interface SharingView {
  gpuCount: number;
  freeGpus: number[];
  gresTotal?: GresItem[] | undefined;
  sharingUsed?: ReadonlyMap<string, ReadonlyMap<number, number>> | undefined;
}

/**
 * Shards and MPS sit on one GPU each (gres.html): a GPU nobody holds whole, with room left in
 * its share of the node's count. The taken items of each sharing name get that GPU's index;
 * undefined when no GPU has room. `now`: as the node is; else an empty node.
 */
export function placeSharing(wanted: readonly GresItem[], taken: GresItem[], node: SharingView, now: boolean): GresItem[] | undefined {
  for (const w of wanted) {
    if (!SHARING_GRES.has(w.name)) continue;
    const used = now ? node.sharingUsed : undefined;
    const shared = [...(used?.values() ?? [])].flatMap((m) => [...m].filter(([, units]) => units > 0).map(([gpu]) => gpu));
    const usable = now ? [...new Set([...node.freeGpus, ...shared])] : Array.from({ length: node.gpuCount }, (_, i) => i);
    const gpu = pickSharingGpu(w.count, sharingPerGpu(w.name, node.gresTotal ?? [], node.gpuCount), usable, used?.get(w.name));
    if (gpu === undefined) return undefined;
    for (const g of taken) if (g.name === w.name) g.gpu = gpu;
  }
  return taken;
}
