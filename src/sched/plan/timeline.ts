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

/** Free resources as a step function: segment j covers [times[j], times[j + 1]) (the last one is open). */
interface Profile {
  times: number[];
  cpus: number[];
  memMiB: number[];
  gpus: number[];
}

export class Timeline {
  private readonly slots: Slot[][];
  private readonly profiles: (Profile | undefined)[];
  /** Node indices in the order their slots changed (consumers remember how far they have read). */
  readonly changes: number[] = [];

  constructor(
    readonly now: number,
    readonly resolutionSec: number,
    private readonly capacity: readonly Capacity[],
  ) {
    assert(resolutionSec >= 1, "bf_resolution is at least one second");
    this.slots = capacity.map(() => []);
    this.profiles = capacity.map(() => undefined);
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
    // the message is built only on failure: add() runs for every running job's share every pass
    if (list === undefined) assert(false, `node index ${node} in the timeline`);
    list.push(slot);
    this.profiles[node] = undefined;
    this.changes.push(node);
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

  capacityOf(node: number): Capacity {
    const cap = this.capacity[node];
    if (cap === undefined) assert(false, `node index ${node} in the timeline`);
    return cap;
  }

  private profile(node: number): Profile {
    const cached = this.profiles[node];
    if (cached !== undefined) return cached;
    const cap = this.capacity[node] as Capacity;
    const list = this.slots[node] as Slot[];
    // events as flat arrays sorted through an index (no pair per event: this runs for every node every pass);
    // the order among events of one instant does not matter, only the totals after the last of them are kept
    const at: number[] = [];
    const which: number[] = [];
    for (let k = 0; k < list.length; k++) {
      const s = list[k] as Slot;
      at.push(Math.max(this.now, s.start));
      which.push(k + 1);
      if (s.end !== INFINITE_END) {
        at.push(s.end);
        which.push(-(k + 1));
      }
    }
    const order = Array.from({ length: at.length }, (_, e) => e);
    if (order.length > 1) order.sort((a, b) => (at[a] as number) - (at[b] as number));
    const p: Profile = { times: [this.now], cpus: [cap.cpus], memMiB: [cap.memMiB], gpus: [cap.gpus] };
    let c = cap.cpus;
    let m = cap.memMiB;
    let g = cap.gpus;
    for (let e = 0; e < order.length; e++) {
      const t = at[order[e] as number] as number;
      const signed = which[order[e] as number] as number;
      const s = list[Math.abs(signed) - 1] as Slot;
      const sign = signed > 0 ? -1 : 1;
      c += sign * s.cpus;
      m += sign * s.memMiB;
      g += sign * s.gpus;
      const nextT = e + 1 < order.length ? (at[order[e + 1] as number] as number) : INFINITE_END;
      if (nextT === t) continue;
      const last = p.times.length - 1;
      if (p.times[last] === t) {
        p.cpus[last] = c;
        p.memMiB[last] = m;
        p.gpus[last] = g;
      } else {
        p.times.push(t);
        p.cpus.push(c);
        p.memMiB.push(m);
        p.gpus.push(g);
      }
    }
    this.profiles[node] = p;
    return p;
  }

  /** The least free on `node` at any instant of [from, to). */
  minFree(node: number, from: number, to: number): Capacity {
    const p = this.profile(node);
    const free = { cpus: Number.POSITIVE_INFINITY, memMiB: Number.POSITIVE_INFINITY, gpus: Number.POSITIVE_INFINITY };
    const n = p.times.length;
    for (let j = 0; j < n; j++) {
      const segStart = p.times[j] as number;
      const segEnd = j + 1 < n ? (p.times[j + 1] as number) : INFINITE_END;
      if (segEnd <= from) continue;
      if (segStart >= to) break;
      free.cpus = Math.min(free.cpus, p.cpus[j] as number);
      free.memMiB = Math.min(free.memMiB, p.memMiB[j] as number);
      free.gpus = Math.min(free.gpus, p.gpus[j] as number);
    }
    assert(free.cpus !== Number.POSITIVE_INFINITY, "some segment covers [from, to)");
    return free;
  }

  /**
   * Start times in [from, horizon] at which `share` fits on `node` for
   * `durationSec` without interruption, as closed intervals [first, last].
   */
  feasibleStarts(node: number, share: Capacity, durationSec: number, from: number, horizon: number): [number, number][] {
    const cap = this.capacity[node] as Capacity;
    if (share.cpus > cap.cpus || share.memMiB > cap.memMiB || share.gpus > cap.gpus) return [];
    const p = this.profile(node);
    const out: [number, number][] = [];
    const n = p.times.length;
    let runStart = -1;
    for (let j = 0; j < n; j++) {
      const segStart = Math.max(from, p.times[j] as number);
      const segEnd = j + 1 < n ? (p.times[j + 1] as number) : INFINITE_END;
      if (segEnd <= from) continue;
      const fits = (p.cpus[j] as number) >= share.cpus && (p.memMiB[j] as number) >= share.memMiB && (p.gpus[j] as number) >= share.gpus;
      if (fits && runStart < 0) runStart = segStart;
      if (!fits && runStart >= 0) {
        pushRun(out, runStart, segStart, durationSec, horizon);
        runStart = -1;
      }
      if (segStart > horizon) break;
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
