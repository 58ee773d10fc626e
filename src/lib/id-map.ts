/**
 * @module lib/id-map
 * A Map from integer ids to values, kept in an array over an id range known up front (a pass's
 * pending jobs), with a plain Map for ids outside it. A scheduling pass fills two maps of every
 * pending job (priorities, reasons): at 100k jobs, 100k Map.set calls cost 10-35 ms each time
 * (hashing and rehashing as the table doubles, and garbage), a third of the pass; an array
 * slot costs nothing. Iteration is in id order over the range, then the others in insertion
 * order: callers must not depend on insertion order (a Map's), and the pass's do not.
 */

const HOLE: unique symbol = Symbol("hole");
type Slot<V> = V | typeof HOLE;

/** Ids spread wider than this many slots per entry (plus a margin) get a plain Map instead. */
const SLOTS_PER_ENTRY_MAX = 4;
const SLOTS_MARGIN = 65_536;

export class IdMap<V> implements Map<number, V> {
  private readonly slots: Slot<V>[];
  private readonly others = new Map<number, V>();
  private count = 0;

  /** Ids `lo`..`hi` (inclusive) go in the array. */
  constructor(private readonly lo: number, hi: number) {
    this.slots = new Array<Slot<V>>(Math.max(0, hi - lo + 1)).fill(HOLE);
  }

  get size(): number {
    return this.count + this.others.size;
  }

  get [Symbol.toStringTag](): string {
    return "IdMap";
  }

  private slotOf(id: number): number {
    const i = id - this.lo;
    return Number.isInteger(i) && i >= 0 && i < this.slots.length ? i : -1;
  }

  get(id: number): V | undefined {
    const i = this.slotOf(id);
    if (i < 0) return this.others.get(id);
    const v = this.slots[i] as Slot<V>;
    return v === HOLE ? undefined : v;
  }

  has(id: number): boolean {
    const i = this.slotOf(id);
    return i < 0 ? this.others.has(id) : this.slots[i] !== HOLE;
  }

  set(id: number, value: V): this {
    const i = this.slotOf(id);
    if (i < 0) {
      this.others.set(id, value);
      return this;
    }
    if (this.slots[i] === HOLE) this.count++;
    this.slots[i] = value;
    return this;
  }

  delete(id: number): boolean {
    const i = this.slotOf(id);
    if (i < 0) return this.others.delete(id);
    if (this.slots[i] === HOLE) return false;
    this.slots[i] = HOLE;
    this.count--;
    return true;
  }

  getOrInsert(id: number, value: V): V {
    if (!this.has(id)) this.set(id, value);
    return this.get(id) as V;
  }

  getOrInsertComputed(id: number, compute: (id: number) => V): V {
    if (!this.has(id)) this.set(id, compute(id));
    return this.get(id) as V;
  }

  clear(): void {
    this.slots.fill(HOLE);
    this.count = 0;
    this.others.clear();
  }

  *entries(): MapIterator<[number, V]> {
    for (let i = 0; i < this.slots.length; i++) {
      const v = this.slots[i] as Slot<V>;
      if (v !== HOLE) yield [this.lo + i, v];
    }
    yield* this.others.entries();
  }

  *keys(): MapIterator<number> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): MapIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator](): MapIterator<[number, V]> {
    return this.entries();
  }

  /** Same order as entries(), as a plain loop: no generator or entry array per element (a pass's 100k reasons). */
  forEach(fn: (value: V, key: number, map: Map<number, V>) => void, thisArg?: unknown): void {
    const slots = this.slots;
    for (let i = 0; i < slots.length; i++) {
      const v = slots[i] as Slot<V>;
      if (v !== HOLE) fn.call(thisArg, v, this.lo + i, this);
    }
    this.others.forEach((v, k) => fn.call(thisArg, v, k, this));
  }
}

/**
 * A map for ids between `lo` and `hi` (about `count` of them): an IdMap where they are dense
 * enough, else a plain Map (ids scattered over millions would make the array the cost).
 */
export function mapForIds<V>(lo: number, hi: number, count: number): Map<number, V> {
  if (hi < lo || hi - lo + 1 > count * SLOTS_PER_ENTRY_MAX + SLOTS_MARGIN) return new Map();
  return new IdMap<V>(lo, hi);
}
