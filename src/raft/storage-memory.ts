/**
 * @module raft/storage-memory
 * An in-memory Storage for tests and the simulator: the read side the core uses, plus the
 * writer the driver calls (append, setHardState, applySnapshot, createSnapshot, compact).
 * ents[0] is a dummy entry holding the snapshot's (index, term), as in etcd's MemoryStorage.
 */
import { assert } from "../lib/assert.ts";
import { type Result, err, ok } from "../lib/result.ts";
import { bootstrapEntries } from "./core/confchange.ts";
import { limitSize } from "./core/log.ts";
import type { ConfState, Entry, HardState, LogIndex, NodeId, Snapshot, Term } from "./core/types.ts";
import { StorageErrorCode, assertContiguous, type WritableStorage } from "./core/ports.ts";

const EMPTY = new Uint8Array(0);

export class MemoryStorage implements WritableStorage {
  private hardState: HardState = { term: 0, vote: 0, commit: 0 };
  private snap: Snapshot;
  /** ents[i] has index snap.meta.index + i; ents[0] is the dummy. */
  private ents: Entry[];

  /** A fresh replica's storage; `confState` bootstraps the initial membership. */
  constructor(confState: ConfState = { voters: [], learners: [] }) {
    this.snap = { meta: { index: 0, term: 0, confState: copyConf(confState) }, data: EMPTY };
    this.ents = [dummy(0, 0)];
  }

  /** Storage of an initial member of a new cluster: the bootstrap entries, committed. */
  static bootstrap(voters: readonly NodeId[]): MemoryStorage {
    const s = new MemoryStorage();
    s.append(bootstrapEntries(voters));
    s.setHardState({ term: 1, vote: 0, commit: voters.length });
    return s;
  }

  initialState(): { hardState: HardState; confState: ConfState } {
    return { hardState: { ...this.hardState }, confState: copyConf(this.snap.meta.confState) };
  }

  entries(lo: LogIndex, hi: LogIndex, maxBytes: number): Result<Entry[]> {
    const offset = this.offset();
    if (lo <= offset) return err(StorageErrorCode.compacted, `index ${lo} compacted`);
    if (hi > this.lastIndex() + 1) return err(StorageErrorCode.unavailable, `index ${hi - 1} beyond last ${this.lastIndex()}`);
    const out = limitSize(this.ents.slice(lo - offset, hi - offset), maxBytes);
    // Read-back check, paired with the write-side one in append().
    assert(out.length === 0 || (out[0]?.index === lo && out[out.length - 1]?.index === lo + out.length - 1), "stored entries contiguous");
    return ok(out);
  }

  term(i: LogIndex): Term | undefined {
    const offset = this.offset();
    if (i < offset || i > this.lastIndex()) return undefined;
    return this.ents[i - offset]?.term;
  }

  firstIndex(): LogIndex {
    return this.offset() + 1;
  }

  lastIndex(): LogIndex {
    return this.offset() + this.ents.length - 1;
  }

  snapshot(): Snapshot {
    return this.snap;
  }

  // ---- writer side (driver only) ----

  atomically(fn: () => void): void {
    fn();
  }

  setHardState(hs: HardState): void {
    assert(hs.term >= this.hardState.term, `stored term must not decrease: ${this.hardState.term} -> ${hs.term}`);
    this.hardState = { ...hs };
  }

  hardStateNow(): HardState {
    return { ...this.hardState };
  }

  /** Persist entries from a Ready: overwrites any stored suffix from ents[0].index on. */
  append(entries: readonly Entry[]): void {
    const first = entries[0];
    if (first === undefined) return;
    assertContiguous(entries);
    const firstStored = this.firstIndex();
    const lastNew = first.index + entries.length - 1;
    if (lastNew < firstStored) return; // all already compacted into the snapshot
    const from = Math.max(first.index, firstStored);
    const kept = from - first.index;
    const at = from - this.offset();
    assert(at <= this.ents.length, `append at ${from} leaves a gap after ${this.lastIndex()}`);
    const prevTerm = this.ents[at - 1]?.term ?? 0;
    assert((entries[kept] as Entry).term >= prevTerm, "appended term follows the stored log");
    this.ents = this.ents.slice(0, at).concat(entries.slice(kept));
  }

  /** Replace everything with a snapshot received from the leader. */
  applySnapshot(snapshot: Snapshot): void {
    assert(snapshot.meta.index >= this.snap.meta.index, "snapshot must not go backwards");
    this.snap = snapshot;
    this.ents = [dummy(snapshot.meta.index, snapshot.meta.term)];
  }

  /** Record the application's snapshot at `index` (<= what was applied). Log is untouched. */
  createSnapshot(index: LogIndex, confState: ConfState, data: Uint8Array): Snapshot {
    const offset = this.offset();
    assert(index > this.snap.meta.index, `snapshot at ${index} not newer than ${this.snap.meta.index}`);
    assert(index <= this.lastIndex(), `snapshot at ${index} beyond last index`);
    const term = this.ents[index - offset]?.term;
    assert(term !== undefined, "snapshot index has a term");
    this.snap = { meta: { index, term, confState: copyConf(confState) }, data };
    return this.snap;
  }

  /** Drop entries up to `index` (which must be covered by the snapshot). */
  compact(index: LogIndex): void {
    const offset = this.offset();
    if (index <= offset) return;
    assert(index <= this.snap.meta.index, `compact ${index} past snapshot ${this.snap.meta.index}`);
    const at = index - offset;
    const head = this.ents[at] as Entry;
    this.ents = [dummy(head.index, head.term)].concat(this.ents.slice(at + 1));
  }

  private offset(): LogIndex {
    return (this.ents[0] as Entry).index;
  }
}

const dummy = (index: LogIndex, term: Term): Entry => ({ index, term, type: "normal", data: EMPTY });
const copyConf = (cs: ConfState): ConfState => ({ voters: cs.voters.slice(), learners: cs.learners.slice() });
