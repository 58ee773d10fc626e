/**
 * @module raft/core/ports
 * What the pure Raft core needs from its world: the read side of durable storage and a
 * random source. Both are synchronous so the core stays deterministic; the driver owns
 * every write (persist -> send -> apply -> advance), never the core.
 */
import type { Result } from "../../lib/result.ts";
import { assert } from "../../lib/assert.ts";
import type { ConfState, Entry, HardState, LogIndex, Snapshot, Term } from "./types.ts";

/** Storage error codes (as `Result` errors). */
export const StorageErrorCode = {
  /** The requested index is at or below the last snapshot: the log there is gone. */
  compacted: "Compacted",
  /** The requested index is past the last stored entry. */
  unavailable: "Unavailable",
} as const;

/**
 * The read side of Raft's durable state. Invariants the core relies on: entries are
 * contiguous from firstIndex() to lastIndex(); term(firstIndex() - 1) is the snapshot's term;
 * nothing changes except through the driver between ready() and advance().
 */
export interface Storage {
  /** Hard state and membership as of the last persisted snapshot. */
  initialState(): { hardState: HardState; confState: ConfState };
  /** Entries [lo, hi), trimmed to about `maxBytes` of payload but never to zero entries. */
  entries(lo: LogIndex, hi: LogIndex, maxBytes: number): Result<Entry[]>;
  /** Term of entry i, for firstIndex()-1 <= i <= lastIndex(); undefined otherwise. */
  term(i: LogIndex): Term | undefined;
  firstIndex(): LogIndex;
  lastIndex(): LogIndex;
  /** The most recent snapshot (index 0 with empty data before any was taken). */
  snapshot(): Snapshot;
}

/** The random source the core draws election timeouts from (src/lib/rng.ts fits). */
export interface RaftRng {
  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number;
}

/**
 * The write side the driver uses (never the core). Both storages implement it and share one
 * conformance suite (tests/unit/raft/storage.case.ts).
 */
export interface WritableStorage extends Storage {
  /**
   * Run several writes as one unit: after a crash all of them are there, or none. `durable`
   * false (a Ready whose mustSync is false: only the commit index moved) skips the fsync:
   * the unit may then be lost in a crash, but only together with every later one (the
   * store keeps its order), and the next durable unit makes it durable too.
   */
  atomically(fn: () => void, durable?: boolean): void;
  setHardState(hs: HardState): void;
  hardStateNow(): HardState;
  /** Persist entries from a Ready: overwrites any stored suffix from entries[0].index on. */
  append(entries: readonly Entry[]): void;
  /** Replace everything with a snapshot received from the leader. */
  applySnapshot(snapshot: Snapshot): void;
  /** Record the application's snapshot at `index` (<= applied). The log is untouched. */
  createSnapshot(index: LogIndex, confState: ConfState, data: Uint8Array): Snapshot;
  /**
   * The same, for an image already durable in `file`, a name beside the store's own file
   * (raft/snapshot-file.ts): only stores kept in a file have it.
   */
  recordSnapshotFile?(index: LogIndex, confState: ConfState, file: string): void;
  /** Drop entries up to `index` (covered by the snapshot). */
  compact(index: LogIndex): void;
}

/** Checked by every storage before it writes a batch: indices contiguous, terms non-decreasing. */
export function assertContiguous(entries: readonly Entry[]): void {
  for (let i = 1; i < entries.length; i++) {
    const prev = entries[i - 1] as Entry;
    const e = entries[i] as Entry;
    assert(e.index === prev.index + 1 && e.term >= prev.term, "appended entries contiguous, terms non-decreasing");
  }
}
