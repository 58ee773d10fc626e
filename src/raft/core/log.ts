/**
 * @module raft/core/log
 * The replicated log as one replica sees it: stable entries in Storage, the unstable tail in
 * memory, plus the commit and applied positions. Read-only towards Storage; the driver
 * persists what unstableEntries() returns (etcd's log.go).
 */
import { assert } from "../../lib/assert.ts";
import { type Result, ok } from "../../lib/result.ts";
import { type Storage, StorageErrorCode } from "./ports.ts";
import { Unstable } from "./log-unstable.ts";
import type { Entry, LogIndex, Snapshot, Term } from "./types.ts";

/** Payload bytes of an entry, the unit of every size limit. */
export const entrySize = (e: Entry): number => e.data.byteLength;

/** Keep a prefix of `ents` whose payload is <= maxBytes, but always at least one entry. */
export function limitSize(ents: Entry[], maxBytes: number): Entry[] {
  let size = 0;
  for (let i = 0; i < ents.length; i++) {
    size += entrySize(ents[i] as Entry);
    if (i > 0 && size > maxBytes) return ents.slice(0, i);
  }
  return ents;
}

export class RaftLog {
  readonly storage: Storage;
  readonly unstable: Unstable;
  /** Highest index known to be committed (never decreases). */
  committed: LogIndex;
  /** Highest index the application has applied (advance() moves it). */
  applied: LogIndex;

  constructor(storage: Storage) {
    this.storage = storage;
    const first = storage.firstIndex();
    this.unstable = new Unstable(storage.lastIndex() + 1);
    // Everything up to the snapshot is committed and applied (the application restores the
    // snapshot, then replays the log). Storage may keep entries behind the snapshot.
    const snapIndex = storage.snapshot().meta.index;
    assert(snapIndex >= first - 1 && snapIndex <= storage.lastIndex(), "snapshot within the stored log");
    this.committed = snapIndex;
    this.applied = snapIndex;
  }

  firstIndex(): LogIndex {
    return this.unstable.maybeFirstIndex() ?? this.storage.firstIndex();
  }

  lastIndex(): LogIndex {
    return this.unstable.maybeLastIndex() ?? this.storage.lastIndex();
  }

  /** Last index of the log that is persisted (the stored part, before the unstable tail). */
  lastStableIndex(): LogIndex {
    if (this.unstable.snapshot !== undefined) return this.storage.lastIndex();
    return this.unstable.entries.length > 0 ? this.unstable.offset - 1 : this.lastIndex();
  }

  /** Term at i, or undefined when i is compacted away or beyond the log. */
  term(i: LogIndex): Term | undefined {
    if (i < this.firstIndex() - 1 || i > this.lastIndex()) return undefined;
    return this.unstable.maybeTerm(i) ?? this.storage.term(i);
  }

  lastTerm(): Term {
    const t = this.term(this.lastIndex());
    assert(t !== undefined, "last entry has a term");
    return t;
  }

  matchTerm(i: LogIndex, t: Term): boolean {
    return this.term(i) === t;
  }

  /** Raft §5.4.1: is a log ending at (lastIndex, term) at least as up to date as ours? */
  isUpToDate(lastIndex: LogIndex, term: Term): boolean {
    const ourTerm = this.lastTerm();
    return term > ourTerm || (term === ourTerm && lastIndex >= this.lastIndex());
  }

  /**
   * Follower side of AppendEntries: if our log holds (index, logTerm), adopt `ents` after it
   * (truncating only on a real conflict) and commit up to min(commit, last new index).
   * Returns the last index now known to match the leader, or undefined on mismatch.
   */
  maybeAppend(index: LogIndex, logTerm: Term, commit: LogIndex, ents: readonly Entry[]): LogIndex | undefined {
    if (!this.matchTerm(index, logTerm)) return undefined;
    const lastNew = index + ents.length;
    const conflict = this.findConflict(ents);
    if (conflict !== 0) {
      assert(conflict > this.committed, `conflict at ${conflict} <= committed ${this.committed}`);
      this.append(ents.slice(conflict - (index + 1)));
    }
    this.commitTo(Math.min(commit, lastNew));
    return lastNew;
  }

  /** Append entries that directly follow or overwrite our uncommitted tail. */
  append(ents: readonly Entry[]): LogIndex {
    const first = ents[0];
    if (first === undefined) return this.lastIndex();
    assert(first.index - 1 >= this.committed, `append at ${first.index} overwrites committed ${this.committed}`);
    assert(first.index <= this.lastIndex() + 1, `append at ${first.index} leaves a gap after ${this.lastIndex()}`);
    this.unstable.truncateAndAppend(ents);
    return this.lastIndex();
  }

  /** First index in `ents` whose term differs from ours or that we lack; 0 if none. */
  findConflict(ents: readonly Entry[]): LogIndex {
    for (const e of ents) {
      if (!this.matchTerm(e.index, e.term)) return e.index;
    }
    return 0;
  }

  /**
   * Fast back-off helper: the largest index <= `index` whose term is <= `term`, with that
   * term (0 when the log there is compacted). Both leader and follower use it to skip a whole
   * conflicting term per round trip instead of one entry.
   */
  findConflictByTerm(index: LogIndex, term: Term): { index: LogIndex; term: Term } {
    for (let i = index; i > 0; i--) {
      const t = this.term(i);
      if (t === undefined) return { index: i, term: 0 };
      if (t <= term) return { index: i, term: t };
    }
    return { index: 0, term: 0 };
  }

  commitTo(index: LogIndex): void {
    if (index <= this.committed) return; // commit never decreases
    assert(index <= this.lastIndex(), `commit ${index} beyond last index ${this.lastIndex()}`);
    this.committed = index;
  }

  /** Raft §5.4.2 / Figure 8: a leader only counts replicas for entries of its own term. */
  maybeCommit(index: LogIndex, term: Term): boolean {
    if (index > this.committed && this.term(index) === term) {
      this.commitTo(index);
      return true;
    }
    return false;
  }

  appliedTo(index: LogIndex): void {
    if (index === 0) return;
    assert(index <= this.committed && index >= this.applied, `applied ${index} outside [${this.applied}, ${this.committed}]`);
    this.applied = index;
  }

  hasPendingSnapshot(): boolean {
    return this.unstable.snapshot !== undefined;
  }

  unstableEntries(): Entry[] {
    return this.unstable.entries.slice();
  }

  /** Committed entries the application has not applied yet, up to maxBytes. */
  nextCommittedEntries(maxBytes: number): Entry[] {
    if (this.hasPendingSnapshot()) return []; // apply the snapshot first
    const lo = Math.max(this.applied + 1, this.firstIndex());
    if (this.committed + 1 <= lo) return [];
    const r = this.slice(lo, this.committed + 1, maxBytes);
    assert(r.ok, `committed entries ${lo}..${this.committed} readable`);
    return r.value;
  }

  hasNextCommittedEntries(): boolean {
    return !this.hasPendingSnapshot() && this.committed > Math.max(this.applied, this.firstIndex() - 1);
  }

  /** Entries from i to the end, up to maxBytes. */
  entries(i: LogIndex, maxBytes: number): Result<Entry[]> {
    if (i > this.lastIndex()) return ok([]);
    return this.slice(i, this.lastIndex() + 1, maxBytes);
  }

  /** Entries [lo, hi) from storage and the unstable tail; "Compacted" below firstIndex. */
  slice(lo: LogIndex, hi: LogIndex, maxBytes: number): Result<Entry[]> {
    assert(lo <= hi && hi <= this.lastIndex() + 1, `slice ${lo}-${hi} out of bound`);
    if (lo < this.firstIndex()) return { ok: false, error: { code: StorageErrorCode.compacted, message: `index ${lo} compacted` } };
    if (lo === hi) return ok([]);
    const offset = this.unstable.offset;
    let out: Entry[] = [];
    if (lo < offset) {
      const stored = this.storage.entries(lo, Math.min(hi, offset), maxBytes);
      if (!stored.ok) return stored;
      out = stored.value;
      // Storage stopped early for the size limit: the unstable part is not needed.
      if (out.length < Math.min(hi, offset) - lo) return ok(out);
    }
    if (hi > offset) {
      const tail = this.unstable.slice(Math.max(lo, offset), hi);
      out = out.length === 0 ? tail : out.concat(tail);
    }
    const limited = limitSize(out, maxBytes);
    assert(limited.length > 0 && limited[0]?.index === lo, "slice starts at lo");
    return ok(limited);
  }

  /** The snapshot to send a lagging follower: a pending incoming one, else storage's. */
  snapshot(): Snapshot {
    return this.unstable.snapshot ?? this.storage.snapshot();
  }

  /** Replace the whole log with a snapshot (follower InstallSnapshot). */
  restore(snapshot: Snapshot): void {
    assert(snapshot.meta.index > this.committed, "restore only moves the log forward");
    this.committed = snapshot.meta.index;
    this.unstable.restore(snapshot);
  }

  /** Called by advance() once the driver has applied a snapshot. */
  appliedSnapshot(index: LogIndex): void {
    if (index > this.applied) this.applied = index;
  }
}
