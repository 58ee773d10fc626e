/**
 * @module sched/plan/timeline
 * The backfill planner's picture of the future: per node, the resources held
 * by running jobs (until start + time limit, rounded up to bf_resolution) and
 * by reservations made for higher-priority pending jobs during this pass. It
 * answers "the least a node has free over [from, to)" and "when could this
 * share start on this node and stay for a duration". An in-memory data
 * structure only: built fresh for each pass from the snapshot, never stored.
 */
import { assert } from "../../lib/assert.ts";

export interface Capacity {
  cpus: number;
  memMiB: number;
  gpus: number;
}

export interface Slot extends Capacity {
  start: number;
  /** Infinity when the job has no time limit. */
  end: number;
}

export const INFINITE_END = Number.POSITIVE_INFINITY;

export class Timeline {
  private readonly slots: Slot[][];

  constructor(
    readonly now: number,
    readonly resolutionSec: number,
    private readonly capacity: readonly Capacity[],
  ) {
    assert(resolutionSec >= 1, "bf_resolution is at least one second");
    this.slots = capacity.map(() => []);
  }

  /** An end time on the resolution grid after `now` (never earlier than the true end). */
  roundEnd(end: number): number {
    if (end === INFINITE_END) return end;
    const steps = Math.max(1, Math.ceil((end - this.now) / this.resolutionSec));
    return this.now + steps * this.resolutionSec;
  }

  add(node: number, slot: Slot): void {
    assert(slot.end > slot.start, "a slot has a positive length");
    const list = this.slots[node];
    assert(list !== undefined, `node index ${node} in the timeline`);
    list.push(slot);
  }

  slotCount(node: number): number {
    return this.slots[node]?.length ?? 0;
  }

  /** Total slots held (sdiag's "table size"). */
  size(): number {
    let n = 0;
    for (const s of this.slots) n += s.length;
    return n;
  }

  /** Resources used on `node` at instant `t`. */
  private usedAt(list: readonly Slot[], t: number): Capacity {
    const used = { cpus: 0, memMiB: 0, gpus: 0 };
    for (const s of list) {
      if (s.start <= t && t < s.end) {
        used.cpus += s.cpus;
        used.memMiB += s.memMiB;
        used.gpus += s.gpus;
      }
    }
    return used;
  }

  /** The least free on `node` at any instant of [from, to). */
  minFree(node: number, from: number, to: number): Capacity {
    const cap = this.capacity[node];
    const list = this.slots[node];
    assert(cap !== undefined && list !== undefined, `node index ${node} in the timeline`);
    const free = { ...cap };
    if (list.length === 0) return free;
    const points = [from];
    for (const s of list) if (s.start > from && s.start < to) points.push(s.start);
    for (const p of points) {
      const used = this.usedAt(list, p);
      free.cpus = Math.min(free.cpus, cap.cpus - used.cpus);
      free.memMiB = Math.min(free.memMiB, cap.memMiB - used.memMiB);
      free.gpus = Math.min(free.gpus, cap.gpus - used.gpus);
    }
    return free;
  }

  /**
   * Start times in [from, horizon] at which `share` fits on `node` for
   * `durationSec` without interruption, as closed intervals [first, last].
   */
  feasibleStarts(node: number, share: Capacity, durationSec: number, from: number, horizon: number): [number, number][] {
    const cap = this.capacity[node];
    const list = this.slots[node];
    assert(cap !== undefined && list !== undefined, `node index ${node} in the timeline`);
    if (share.cpus > cap.cpus || share.memMiB > cap.memMiB || share.gpus > cap.gpus) return [];
    const points = [from];
    for (const s of list) {
      if (s.start > from && s.start !== INFINITE_END) points.push(s.start);
      if (s.end > from && s.end !== INFINITE_END) points.push(s.end);
    }
    points.sort((a, b) => a - b);
    const out: [number, number][] = [];
    let runStart = -1;
    for (let i = 0; i < points.length; i++) {
      const p = points[i] as number;
      if (i > 0 && p === points[i - 1]) continue;
      const used = this.usedAt(list, p);
      const fits = cap.cpus - used.cpus >= share.cpus && cap.memMiB - used.memMiB >= share.memMiB && cap.gpus - used.gpus >= share.gpus;
      if (fits && runStart < 0) runStart = p;
      if (!fits && runStart >= 0) {
        pushRun(out, runStart, p, durationSec, horizon);
        runStart = -1;
      }
      if (runStart > horizon) break;
    }
    if (runStart >= 0) pushRun(out, runStart, INFINITE_END, durationSec, horizon);
    return out;
  }
}

function pushRun(out: [number, number][], start: number, end: number, durationSec: number, horizon: number): void {
  if (start > horizon) return;
  const last = end === INFINITE_END ? horizon : Math.min(horizon, end - durationSec);
  if (last >= start) out.push([start, last]);
}

/**
 * Earliest instant covered by at least `count` of the per-node interval lists
 * (each list: one node's feasible start intervals), or undefined.
 */
export function earliestCommonStart(perNode: readonly [number, number][][], count: number, skip: ReadonlySet<number> = new Set()): number | undefined {
  const events: [number, number][] = [];
  for (const list of perNode) {
    for (const [a, b] of list) {
      events.push([a, 1]);
      events.push([b, -1]);
    }
  }
  // Openings before closings at the same instant: intervals are closed.
  events.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  let open = 0;
  for (const [t, delta] of events) {
    open += delta;
    if (delta > 0 && open >= count && !skip.has(t)) return t;
  }
  return undefined;
}
