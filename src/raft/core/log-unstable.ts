/**
 * @module raft/core/log-unstable
 * The tail of the log that is not yet durable: entries (and possibly an incoming snapshot)
 * that the next Ready hands to the driver to persist. After advance() they become stable
 * and are read from Storage instead (etcd's log_unstable.go).
 */
import { assert } from "../../lib/assert.ts";
import type { Entry, LogIndex, Snapshot, Term } from "./types.ts";

export class Unstable {
  /** An incoming snapshot not yet persisted; it precedes `entries`. */
  snapshot: Snapshot | undefined = undefined;
  entries: Entry[] = [];
  /** Index of entries[0] (or where it would be). */
  offset: LogIndex;

  constructor(offset: LogIndex) {
    this.offset = offset;
  }

  /** First log index known only here: set only when a snapshot is pending. */
  maybeFirstIndex(): LogIndex | undefined {
    return this.snapshot === undefined ? undefined : this.snapshot.meta.index + 1;
  }

  maybeLastIndex(): LogIndex | undefined {
    if (this.entries.length > 0) return this.offset + this.entries.length - 1;
    return this.snapshot === undefined ? undefined : this.snapshot.meta.index;
  }

  maybeTerm(i: LogIndex): Term | undefined {
    if (i < this.offset) {
      const snap = this.snapshot;
      return snap !== undefined && snap.meta.index === i ? snap.meta.term : undefined;
    }
    const entry = this.entries[i - this.offset];
    return entry === undefined ? undefined : entry.term;
  }

  /**
   * The driver persisted everything up to (i, t). If the entry at i was replaced since the
   * Ready was built (a conflicting append), it is still unstable: keep it.
   */
  stableTo(i: LogIndex, t: Term): void {
    if (i < this.offset) return;
    if (this.maybeTerm(i) !== t) return;
    this.entries = this.entries.slice(i + 1 - this.offset);
    this.offset = i + 1;
    assert(this.entries.length === 0 || this.entries[0]?.index === this.offset, "unstable offset");
  }

  stableSnapTo(i: LogIndex): void {
    if (this.snapshot !== undefined && this.snapshot.meta.index === i) this.snapshot = undefined;
  }

  restore(snapshot: Snapshot): void {
    this.offset = snapshot.meta.index + 1;
    this.entries = [];
    this.snapshot = snapshot;
  }

  /** Append `ents`, dropping any existing entries at or after ents[0].index. */
  truncateAndAppend(ents: readonly Entry[]): void {
    const first = ents[0];
    if (first === undefined) return;
    const fromIndex = first.index;
    const end = this.offset + this.entries.length;
    if (fromIndex === end) {
      for (const e of ents) this.entries.push(e);
    } else if (fromIndex <= this.offset) {
      // Replaces everything unstable; the stable part is truncated when the driver writes.
      this.offset = fromIndex;
      this.entries = ents.slice();
    } else {
      assert(fromIndex < end, `unstable gap: append at ${fromIndex}, end ${end}`);
      this.entries = this.entries.slice(0, fromIndex - this.offset).concat(ents);
    }
    this.assertContiguous();
  }

  /** Entries [lo, hi), which must lie within the unstable range. */
  slice(lo: LogIndex, hi: LogIndex): Entry[] {
    assert(lo >= this.offset && hi <= this.offset + this.entries.length, `unstable slice ${lo}-${hi}`);
    return this.entries.slice(lo - this.offset, hi - this.offset);
  }

  private assertContiguous(): void {
    const n = this.entries.length;
    if (n === 0) return;
    assert(this.entries[0]?.index === this.offset, "unstable entries start at offset");
    assert(this.entries[n - 1]?.index === this.offset + n - 1, "unstable entries contiguous");
  }
}
