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

/*
 * A node's profile: its free resources as a step function of n segments, kept in the timeline's
 * arena (one Float64Array for all nodes, appended to: a pass on 10k nodes builds every profile,
 * and four arrays per node were much of its garbage). Segment j covers [times[j], times[j + 1])
 * (the last one is open); times, cpus, memMiB and gpus follow one another, n each.
 */

/** Event counts up to this are sorted in place by insertion (no index array, no comparator closure). */
const INSERTION_SORT_MAX = 64;

export class Timeline {
  private readonly slots: Slot[][];
  /** Per node: where its profile starts in the arena, -1 while it is to be (re)built; and its segment count. */
  private readonly profileAt: Int32Array;
  private readonly profileN: Int32Array;
  /** Profiles, appended as built; a rebuilt one leaves its old copy behind until the arena is next grown (then only live ones move). */
  private arena: Float64Array;
  private arenaUsed = 0;
  /** Node indices in the order their slots changed (consumers remember how far they have read). */
  readonly changes: number[] = [];
  /** Scratch for profile(): event instants and signed slot numbers, grown as needed, reused for every node. */
  private eventAt = new Float64Array(32);
  private eventWhich = new Int32Array(32);
  private segments = new Float64Array(128);

  constructor(
    readonly now: number,
    readonly resolutionSec: number,
    private readonly capacity: readonly Capacity[],
  ) {
    assert(resolutionSec >= 1, "bf_resolution is at least one second");
    this.slots = capacity.map(() => []);
    this.profileAt = new Int32Array(capacity.length).fill(-1);
    this.profileN = new Int32Array(capacity.length);
    // room for two segments a node before the first regrow
    this.arena = new Float64Array(Math.max(1024, 8 * capacity.length));
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
    this.profileAt[node] = -1;
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

  /** The node's events (slot starts, finite ends) in the scratch arrays, sorted by instant; returns their count. */
  private sortedEvents(list: readonly Slot[]): number {
    if (this.eventAt.length < 2 * list.length) {
      this.eventAt = new Float64Array(4 * list.length);
      this.eventWhich = new Int32Array(4 * list.length);
    }
    const at = this.eventAt;
    const which = this.eventWhich;
    let e = 0;
    for (let k = 0; k < list.length; k++) {
      const s = list[k] as Slot;
      at[e] = Math.max(this.now, s.start);
      which[e++] = k + 1;
      if (s.end !== INFINITE_END) {
        at[e] = s.end;
        which[e++] = -(k + 1);
      }
    }
    // the order among events of one instant does not matter, only the totals after the last of them are kept
    if (e <= INSERTION_SORT_MAX) {
      for (let x = 1; x < e; x++) {
        const t = at[x] as number;
        const w = which[x] as number;
        let y = x - 1;
        while (y >= 0 && (at[y] as number) > t) {
          at[y + 1] = at[y] as number;
          which[y + 1] = which[y] as number;
          y--;
        }
        at[y + 1] = t;
        which[y + 1] = w;
      }
      return e;
    }
    // many slots on one node (hundreds of small jobs): sort through an index, O(e log e)
    const order = Array.from({ length: e }, (_, x) => x);
    order.sort((a, b) => (at[a] as number) - (at[b] as number));
    const sortedAt = order.map((x) => at[x] as number);
    const sortedWhich = order.map((x) => which[x] as number);
    for (let x = 0; x < e; x++) {
      at[x] = sortedAt[x] as number;
      which[x] = sortedWhich[x] as number;
    }
    return e;
  }

  /**
   * Where the node's profile starts in the arena (profileN: its segment count), built if its slots
   * changed. Read this.arena only after this call: building may replace it.
   */
  private profile(node: number): number {
    const cached = this.profileAt[node] as number;
    if (cached >= 0) return cached;
    const cap = this.capacity[node] as Capacity;
    const list = this.slots[node] as Slot[];
    const count = this.sortedEvents(list);
    const at = this.eventAt;
    const which = this.eventWhich;
    // segments built in scratch as [time, cpus, mem, gpus] quadruples, then copied out at their final size
    if (this.segments.length < 4 * (count + 1)) this.segments = new Float64Array(8 * (count + 1));
    const seg = this.segments;
    seg[0] = this.now;
    seg[1] = cap.cpus;
    seg[2] = cap.memMiB;
    seg[3] = cap.gpus;
    let n = 1;
    let c = cap.cpus;
    let m = cap.memMiB;
    let g = cap.gpus;
    for (let e = 0; e < count; e++) {
      const t = at[e] as number;
      const signed = which[e] as number;
      const s = list[Math.abs(signed) - 1] as Slot;
      const sign = signed > 0 ? -1 : 1;
      c += sign * s.cpus;
      m += sign * s.memMiB;
      g += sign * s.gpus;
      if (e + 1 < count && at[e + 1] === t) continue;
      const last = 4 * (n - 1);
      if (seg[last] !== t) n++;
      const w = 4 * (n - 1);
      seg[w] = t;
      seg[w + 1] = c;
      seg[w + 2] = m;
      seg[w + 3] = g;
    }
    if (this.arenaUsed + 4 * n > this.arena.length) this.regrow(4 * n);
    const data = this.arena;
    const o = this.arenaUsed;
    for (let j = 0; j < n; j++) {
      data[o + j] = seg[4 * j] as number;
      data[o + n + j] = seg[4 * j + 1] as number;
      data[o + 2 * n + j] = seg[4 * j + 2] as number;
      data[o + 3 * n + j] = seg[4 * j + 3] as number;
    }
    this.arenaUsed += 4 * n;
    this.profileAt[node] = o;
    this.profileN[node] = n;
    return o;
  }

  /** A new arena with room for `more`, holding only the live profiles (at most twice their size plus `more`). */
  private regrow(more: number): void {
    let live = 0;
    for (let i = 0; i < this.profileAt.length; i++) if ((this.profileAt[i] as number) >= 0) live += 4 * (this.profileN[i] as number);
    const grown = new Float64Array(Math.max(1024, 2 * (live + more)));
    let w = 0;
    for (let i = 0; i < this.profileAt.length; i++) {
      const o = this.profileAt[i] as number;
      if (o < 0) continue;
      const size = 4 * (this.profileN[i] as number);
      for (let x = 0; x < size; x++) grown[w + x] = this.arena[o + x] as number;
      this.profileAt[i] = w;
      w += size;
    }
    this.arena = grown;
    this.arenaUsed = w;
  }

  /** The least free on `node` at any instant of [from, to). */
  minFree(node: number, from: number, to: number): Capacity {
    const o = this.profile(node);
    const n = this.profileN[node] as number;
    const data = this.arena;
    const free = { cpus: Number.POSITIVE_INFINITY, memMiB: Number.POSITIVE_INFINITY, gpus: Number.POSITIVE_INFINITY };
    for (let j = 0; j < n; j++) {
      const segStart = data[o + j] as number;
      const segEnd = j + 1 < n ? (data[o + j + 1] as number) : INFINITE_END;
      if (segEnd <= from) continue;
      if (segStart >= to) break;
      free.cpus = Math.min(free.cpus, data[o + n + j] as number);
      free.memMiB = Math.min(free.memMiB, data[o + 2 * n + j] as number);
      free.gpus = Math.min(free.gpus, data[o + 3 * n + j] as number);
    }
    assert(free.cpus !== Number.POSITIVE_INFINITY, "some segment covers [from, to)");
    return free;
  }

  /**
   * Start times in [from, horizon] at which `share` fits on `node` for
   * `durationSec` without interruption, as closed intervals [first, last].
   */
  feasibleStarts(node: number, share: Capacity, durationSec: number, from: number, horizon: number): [number, number][] {
    const flat: number[] = [];
    this.feasibleRuns(node, share.cpus, share.memMiB, share.gpus, durationSec, from, horizon, flat);
    const out: [number, number][] = [];
    for (let k = 0; k < flat.length; k += 2) out.push([flat[k] as number, flat[k + 1] as number]);
    return out;
  }

  /**
   * feasibleStarts without a pair per interval: the intervals appended to `out` as
   * first, last, first, last, ... (the backfill grid calls this for every node of every
   * shape, with one scratch array for all of them).
   */
  feasibleRuns(node: number, cpus: number, memMiB: number, gpus: number, durationSec: number, from: number, horizon: number, out: number[]): void {
    const cap = this.capacity[node] as Capacity;
    if (cpus > cap.cpus || memMiB > cap.memMiB || gpus > cap.gpus) return;
    const o = this.profile(node);
    const n = this.profileN[node] as number;
    const data = this.arena;
    let runStart = -1;
    for (let j = 0; j < n; j++) {
      const segStart = Math.max(from, data[o + j] as number);
      const segEnd = j + 1 < n ? (data[o + j + 1] as number) : INFINITE_END;
      if (segEnd <= from) continue;
      const fits = (data[o + n + j] as number) >= cpus && (data[o + 2 * n + j] as number) >= memMiB && (data[o + 3 * n + j] as number) >= gpus;
      if (fits && runStart < 0) runStart = segStart;
      if (!fits && runStart >= 0) {
        pushRun(out, runStart, segStart, durationSec, horizon);
        runStart = -1;
      }
      if (segStart > horizon) break;
    }
    if (runStart >= 0) pushRun(out, runStart, INFINITE_END, durationSec, horizon);
  }
}

function pushRun(out: number[], start: number, end: number, durationSec: number, horizon: number): void {
  if (start > horizon) return;
  const last = end === INFINITE_END ? horizon : Math.min(horizon, end - durationSec);
  if (last >= start) out.push(start, last);
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
