/**
 * @module raft/storage-tail
 * The newest stored entries, kept in memory by the SQLite store (storage-sqlite.ts). Raft
 * reads back what it has just appended: the committed entries it applies a moment after
 * storing them, and the leader the entries it sends to each follower. Served from SQLite,
 * each of those reads was a query and a fresh copy of every entry (measured on a follower
 * under 64 submissions in flight: the read-back was about 5% of its samples).
 * The cache is only ever a suffix of the stored log, contiguous, and a copy of what is on
 * disk: the store drops from it whatever it truncates or compacts, and empties it whenever
 * a transaction fails (then what is on disk is read again). Bounded in bytes: the oldest
 * entries leave first.
 */
import type { Entry, LogIndex } from "./core/types.ts";

/** Bytes of entry data kept (plus a small allowance per entry for the object itself). */
export const TAIL_CACHE_BYTES = 8 << 20;
const PER_ENTRY_BYTES = 64;

export class TailCache {
  private entries: Entry[] = [];
  /** Index of entries[head]: the array is trimmed from the front lazily. */
  private head = 0;
  private bytes = 0;

  constructor(private readonly maxBytes = TAIL_CACHE_BYTES) {}

  /** First index held (undefined when empty). */
  first(): LogIndex | undefined {
    const e = this.entries[this.head];
    return e?.index;
  }

  /** Entries [lo, hi) when all of them are held, else undefined. */
  slice(lo: LogIndex, hi: LogIndex): Entry[] | undefined {
    const first = this.first();
    if (first === undefined || lo < first) return undefined;
    const from = this.head + (lo - first);
    const to = this.head + (hi - first);
    if (to > this.entries.length) return undefined;
    return this.entries.slice(from, to);
  }

  /**
   * Entries just stored after the held ones (the store has truncated from the first of them
   * on: `truncateFrom` first). A gap after the held suffix starts the cache over.
   */
  append(ents: readonly Entry[]): void {
    const first = ents[0];
    if (first === undefined) return;
    const last = this.entries[this.entries.length - 1];
    if (last !== undefined && last.index + 1 !== first.index) this.clear();
    for (const e of ents) {
      this.entries.push(e);
      this.bytes += e.data.length + PER_ENTRY_BYTES;
    }
    while (this.bytes > this.maxBytes && this.head < this.entries.length) this.dropHead();
    this.pack();
  }

  /** Forget entries from `index` on (the store overwrites them). */
  truncateFrom(index: LogIndex): void {
    while (this.entries.length > this.head && (this.entries[this.entries.length - 1] as Entry).index >= index) {
      this.bytes -= (this.entries.pop() as Entry).data.length + PER_ENTRY_BYTES;
    }
    if (this.entries.length === this.head) this.clear();
  }

  /** Forget entries up to `index` (compacted into a snapshot). */
  dropTo(index: LogIndex): void {
    while (this.head < this.entries.length && (this.entries[this.head] as Entry).index <= index) this.dropHead();
    this.pack();
  }

  clear(): void {
    this.entries = [];
    this.head = 0;
    this.bytes = 0;
  }

  private dropHead(): void {
    this.bytes -= (this.entries[this.head] as Entry).data.length + PER_ENTRY_BYTES;
    this.entries[this.head] = undefined as unknown as Entry;
    this.head++;
  }

  /** Once half the array is dropped slots, copy the live part down (amortised O(1) per entry). */
  private pack(): void {
    if (this.head === this.entries.length) return this.clear();
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }
}
