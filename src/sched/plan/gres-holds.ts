/**
 * @module sched/plan/gres-holds
 * Counted GRES (nvme:1, shard:2) over time for the backfill planner: the timeline
 * counts CPUs, memory and GPUs only, so each pass also records who holds which
 * counted GRES from when to when (running jobs, its own starts and reservations).
 * A start or a reservation then sees a node's GRES as free only when no hold
 * overlapping its interval takes them. In-memory, rebuilt for every pass.
 */
import { parseGresItems, type GresItem } from "../../compat/gres-generic.ts";
import { freeGres, takeGres } from "./gres-fit.ts";
import { INFINITE_END } from "./timeline.ts";

/** What is read of a node view (fit-node's NodeView) and of a request (request.ts). */
interface GresView {
  gresTotal?: GresItem[] | undefined;
}
interface GresAsk {
  gresGeneric?: GresItem[] | undefined;
}

export interface GresHold {
  start: number;
  end: number;
  items: GresItem[];
}

/** Holds by node index (the placement's view/timeline index). */
export type GresHolds = Map<number, GresHold[]>;

/** What the planner's functions read: the views and the holds. */
interface Holder {
  views: readonly GresView[];
  gresHolds?: GresHolds;
}

/** Record that `gres` (a share's NodeAlloc.gres) is held on node `i` over [start, end). */
export function holdGres(p: Holder, i: number, start: number, end: number, gres: string | undefined): void {
  if (!gres) return;
  p.gresHolds ??= new Map();
  const list = p.gresHolds.get(i) ?? [];
  list.push({ start, end, items: parseGresItems(gres) });
  p.gresHolds.set(i, list);
}

/** Node `i`'s counted GRES free over all of [from, to): every hold overlapping it is charged (conservative). */
export function gresFreeOver(p: Holder, i: number, v: GresView, from: number, to: number): GresItem[] | undefined {
  if (v.gresTotal === undefined) return undefined;
  const holds = (p.gresHolds?.get(i) ?? []).filter((h) => h.start < to && h.end > from).map((h) => h.items);
  return freeGres(v.gresTotal, holds);
}

/** Whether at least `wanted` of `candidates` have the request's counted GRES free over [t, t + duration). */
export function gresRoomAt(p: Holder, req: GresAsk, candidates: readonly number[], wanted: number, t: number, durationSec: number): boolean {
  if (req.gresGeneric === undefined || req.gresGeneric.length === 0) return true;
  const end = durationSec === INFINITE_END ? INFINITE_END : t + durationSec;
  let room = 0;
  for (const i of candidates) {
    const free = gresFreeOver(p, i, p.views[i] ?? {}, t, end);
    if (free !== undefined && takeGres(req.gresGeneric, free) !== undefined && ++room >= wanted) return true;
  }
  return false;
}
