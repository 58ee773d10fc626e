/**
 * @module raft/storage-sqlite
 * Raft's durable state in one bun:sqlite file: the log (idx, term, type, data; in tables of
 * 4096 indices, storage-sqlite-segments.ts, so that compaction drops tables instead of
 * deleting rows), the hard state (term, vote, commit) and the latest snapshot (meta + the
 * opaque image the controller produced: a row here, or a file beside this one that the
 * controller's snapshot worker wrote, raft/snapshot-file.ts). Schema 1 files (one `log` table)
 * are converted when opened; schema 2 files (no image files) are read as they are. WAL with synchronous=FULL, and the driver writes one Ready in one
 * transaction (`atomically`), so a crash mid-write leaves the previous consistent prefix:
 * SQLite either has the whole Ready or none of it. Reads are synchronous, so the pure core
 * stays deterministic over this storage exactly as over MemoryStorage.
 * Failure policy: a file that breaks an invariant on open (a gap in the log, a log that
 * does not start after the snapshot) is refused loudly rather than served. A write the disk
 * refuses (full) changes nothing, on disk or in memory (see atomically), and is thrown to
 * the driver, which keeps the replica up and retries.
 */
import { Database, type Statement } from "bun:sqlite";
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { assert } from "../lib/assert.ts";
import { type Result, err, ok } from "../lib/result.ts";
import { bootstrapEntries } from "./core/confchange.ts";
import { limitSize } from "./core/log.ts";
import type { ConfState, Entry, EntryType, HardState, LogIndex, NodeId, Snapshot, SnapshotMeta, Term } from "./core/types.ts";
import { StorageErrorCode, assertContiguous, type WritableStorage } from "./core/ports.ts";
import { LogSegments, NORMAL_ENTRY, segmentEntriesOf, type LogRow } from "./storage-sqlite-segments.ts";
import { TailCache } from "./storage-tail.ts";
import { removeSnapshotFiles } from "./snapshot-file.ts";

/**
 * 3: the snapshot's image may be a file (meta "snapfile"); 2: the log in segment tables (read
 * as 3: it has no image file); 1: one `log` table (converted on open). An older spurctld
 * refuses a schema-3 file rather than read an empty image.
 */
const SCHEMA_VERSION = 3;
const EMPTY = new Uint8Array(0);

const typeCode = (t: EntryType): number => (t === "normal" ? NORMAL_ENTRY : 1);
const typeOf = (c: number): EntryType => (c === NORMAL_ENTRY ? "normal" : "conf-change");
const toEntry = (r: LogRow): Entry => ({ index: r.idx, term: r.term, type: typeOf(r.type), data: r.data ?? EMPTY });

export class SqliteStorage implements WritableStorage {
  private readonly db: Database;
  private hard: HardState = { term: 0, vote: 0, commit: 0 };
  private snapMeta: SnapshotMeta = { index: 0, term: 0, confState: { voters: [], learners: [] } };
  private snapData: Uint8Array | undefined = EMPTY;
  /** The file holding the snapshot's image (a name beside the log), or "" for the row in `snapshot`. */
  private snapFile = "";
  /** Image files superseded by a snapshot not yet durable: removed after the next durable unit. */
  private superseded: string[] = [];
  private last: LogIndex = 0;
  /** The compaction point: the log holds (offset.index, last]; may trail the snapshot. */
  private offset: { index: LogIndex; term: Term } = { index: 0, term: 0 };
  /**
   * Terms of the stored log as runs: runs[k] = [first index, term], first indices increasing;
   * a run lasts until the next one starts (or `last`). The core asks for terms on every
   * append it sends, so they are answered from memory instead of a query each.
   */
  private runs: [LogIndex, Term][] = [];
  /** The connection's current PRAGMA synchronous (FULL unless a non-durable unit is written). */
  private syncFull = true;
  private readonly q: {
    setMeta: Statement<unknown, [string, string]>;
  };
  private readonly log: LogSegments;
  /**
   * The compaction point whose segments are still to be dropped: one a write transaction, so
   * a snapshot's compaction is not one long stall (each DROP TABLE frees every page of its 4096
   * entries; at 100k jobs, dropping them all at once was 78-163 ms of a snapshot's 94-198 ms on
   * the replica's thread). The rows are gone as far as the store is concerned (the offset).
   */
  private dropBelow = 0;
  /** The newest stored entries, read back from memory (storage-tail.ts). */
  private readonly tail: TailCache;

  /** Open (or create) the store at `path`; ":memory:" works for tests, as do `maxPageCount` (a "full disk") and a small `tailBytes`. */
  constructor(private readonly path: string, opts: { maxPageCount?: number; tailBytes?: number } = {}) {
    this.tail = new TailCache(opts.tailBytes);
    this.db = new Database(path, { create: true });
    this.db.exec("PRAGMA journal_mode = WAL");
    this.db.exec("PRAGMA synchronous = FULL");
    // The log is appended at its end and read back near it (followers' catch-up, apply):
    // SQLite's default 2 MiB page cache would mostly hold old entries in the replica's memory.
    this.db.exec("PRAGMA cache_size = -256");
    this.db.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    this.db.exec("CREATE TABLE IF NOT EXISTS snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), data BLOB NOT NULL)");
    this.q = { setMeta: this.db.query("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)") };
    this.log = new LogSegments(this.db, segmentEntriesOf(this.db, true));
    this.load(path);
    if (opts.maxPageCount !== undefined) this.db.exec(`PRAGMA max_page_count = ${Math.floor(opts.maxPageCount)}`);
  }

  /** Tests: change the page cap (a disk that fills up, or gets room again). */
  setMaxPageCount(pages: number): void {
    this.db.exec(`PRAGMA max_page_count = ${Math.floor(pages)}`);
  }

  /** Storage of an initial member of a new cluster (no-op when the file already has a log). */
  static bootstrap(path: string, voters: readonly NodeId[]): SqliteStorage {
    const s = new SqliteStorage(path);
    if (s.lastIndex() === 0 && s.offset.index === 0) {
      s.atomically(() => {
        s.append(bootstrapEntries(voters));
        s.setHardState({ term: 1, vote: 0, commit: voters.length });
      });
    }
    return s;
  }

  private load(path: string): void {
    const get = (key: string) => this.db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key)?.value;
    const version = get("schema");
    if (version === undefined) this.q.setMeta.run("schema", String(SCHEMA_VERSION));
    else if (Number(version) === 1) this.convertSchema1();
    else if (Number(version) === 2) this.q.setMeta.run("schema", String(SCHEMA_VERSION));
    else if (Number(version) !== SCHEMA_VERSION) throw new Error(`raft log ${path} has schema ${version}, this spurctld reads ${SCHEMA_VERSION}`);
    const hard = get("hard");
    if (hard !== undefined) this.hard = JSON.parse(hard) as HardState;
    const snap = get("snap");
    if (snap !== undefined) {
      this.snapMeta = JSON.parse(snap) as SnapshotMeta;
      this.snapData = undefined; // read lazily: it can be large
    }
    this.snapFile = get("snapfile") ?? "";
    // Images of snapshots never recorded, or superseded before a crash: nothing refers to them.
    if (path !== ":memory:") removeSnapshotFiles(path, new Set([this.snapFile]), true);
    const offset = get("offset");
    if (offset !== undefined) this.offset = JSON.parse(offset) as { index: LogIndex; term: Term };
    // Checks on the read side of the boundary, paired with append()'s on the write side.
    let next = this.offset.index + 1;
    for (const row of this.log.terms(this.offset.index)) {
      assert(row.idx === next, next === this.offset.index + 1 ? `raft log ${path} starts at ${row.idx}, compacted to ${this.offset.index}` : `raft log ${path} has a gap between ${next - 1} and ${row.idx}`);
      this.noteTerm(row.idx, row.term);
      next++;
    }
    this.last = next - 1;
    this.dropBelow = this.offset.index;
    assert(this.hard.commit <= this.last, `raft log ${path}: commit ${this.hard.commit} beyond last index ${this.last}`);
  }

  /** A schema-1 file: its one `log` table becomes segments (once, in one transaction). */
  private convertSchema1(): void {
    this.db.transaction(() => {
      const rows = this.db.query<LogRow, []>("SELECT idx, term, type, data FROM log ORDER BY idx").all();
      this.log.insert(rows);
      this.db.exec("DROP TABLE log");
      this.q.setMeta.run("schema", String(SCHEMA_VERSION));
    })();
  }

  initialState(): { hardState: HardState; confState: ConfState } {
    return { hardState: { ...this.hard }, confState: copyConf(this.snapMeta.confState) };
  }

  entries(lo: LogIndex, hi: LogIndex, maxBytes: number): Result<Entry[]> {
    if (lo <= this.offset.index) return err(StorageErrorCode.compacted, `index ${lo} compacted`);
    if (hi > this.last + 1) return err(StorageErrorCode.unavailable, `index ${hi - 1} beyond last ${this.last}`);
    const out = limitSize(this.tail.slice(lo, hi) ?? this.log.range(lo, hi, maxBytes).map(toEntry), maxBytes);
    assert(out.length === 0 || (out[0]?.index === lo && out[out.length - 1]?.index === lo + out.length - 1), "stored entries contiguous");
    return ok(out);
  }

  term(i: LogIndex): Term | undefined {
    if (i === this.offset.index) return this.offset.term;
    if (i < this.offset.index || i > this.last) return undefined;
    const fromRuns = this.termFromRuns(i);
    assert(fromRuns !== undefined, `term of stored entry ${i} known`);
    return fromRuns;
  }

  /** Binary search of the run holding index i (undefined before the first run). */
  private termFromRuns(i: LogIndex): Term | undefined {
    let lo = 0;
    let hi = this.runs.length - 1;
    let found: Term | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const run = this.runs[mid] as [LogIndex, Term];
      if (run[0] <= i) {
        found = run[1];
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** Record that entry `index` (just past every recorded one) has `term`. */
  private noteTerm(index: LogIndex, term: Term): void {
    const tail = this.runs[this.runs.length - 1];
    if (tail === undefined || tail[1] !== term) this.runs.push([index, term]);
  }

  /** Forget the terms of entries from `index` on (they are being overwritten). */
  private dropTermsFrom(index: LogIndex): void {
    while (this.runs.length > 0 && (this.runs[this.runs.length - 1] as [LogIndex, Term])[0] >= index) this.runs.pop();
  }

  /** Forget the terms of entries up to `index` (compacted), keeping the run that covers index + 1. */
  private dropTermsTo(index: LogIndex): void {
    let k = 0;
    while (k + 1 < this.runs.length && (this.runs[k + 1] as [LogIndex, Term])[0] <= index + 1) k++;
    if (k > 0) this.runs.splice(0, k);
    const head = this.runs[0];
    if (head !== undefined && head[0] <= index) head[0] = index + 1;
  }

  firstIndex(): LogIndex {
    return this.offset.index + 1;
  }

  lastIndex(): LogIndex {
    return this.last;
  }

  snapshot(): Snapshot {
    if (this.snapData === undefined) {
      if (this.snapFile !== "") this.snapData = new Uint8Array(readFileSync(join(dirname(this.path), this.snapFile)));
      else this.snapData = this.db.query<{ data: Uint8Array }, []>("SELECT data FROM snapshot WHERE id = 1").get()?.data ?? EMPTY;
    }
    return { meta: this.snapMeta, data: this.snapData };
  }

  // ---- writer side (driver only) ----

  /**
   * Run `fn` (several writes) as one transaction: all of it is durable, or none. When the
   * transaction fails (a full disk: SQLITE_FULL) SQLite rolls the file back, and the
   * in-memory view (last index, hard state, snapshot meta, offset) is put back with it, so
   * the store still describes exactly what is on disk and the caller may simply retry.
   */
  atomically(fn: () => void, durable = true): void {
    const saved = { hard: this.hard, snapMeta: this.snapMeta, snapData: this.snapData, snapFile: this.snapFile, superseded: this.superseded.length, last: this.last, offset: this.offset, runs: this.runs.map((r) => [r[0], r[1]] as [LogIndex, Term]), segments: this.log.save() };
    if (durable !== this.syncFull) {
      // WAL + NORMAL: the commit is ordered after every earlier one but not fsynced; the next
      // FULL commit fsyncs the WAL, this frame included.
      this.db.exec(durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
      this.syncFull = durable;
    }
    try {
      this.db.transaction(() => {
        fn();
        this.log.dropOneTo(this.dropBelow);
      })();
    } catch (error) {
      // An image file this unit recorded is referred to by nothing now.
      if (this.snapFile !== saved.snapFile && this.snapFile !== "") rmSync(join(dirname(this.path), this.snapFile), { force: true });
      this.snapFile = saved.snapFile;
      this.superseded.length = saved.superseded;
      this.hard = saved.hard;
      this.snapMeta = saved.snapMeta;
      this.snapData = saved.snapData;
      this.last = saved.last;
      this.offset = saved.offset;
      this.runs = saved.runs;
      this.log.restore(saved.segments);
      // what the transaction appended or dropped is back as it was on disk: read it from there
      this.tail.clear();
      throw error;
    }
    // Durable now, and every unit before: the images they superseded can go.
    if (this.syncFull && this.superseded.length > 0) {
      for (const name of this.superseded) rmSync(join(dirname(this.path), name), { force: true });
      this.superseded = [];
    }
  }

  setHardState(hs: HardState): void {
    assert(hs.term >= this.hard.term, `stored term must not decrease: ${this.hard.term} -> ${hs.term}`);
    this.hard = { ...hs };
    this.q.setMeta.run("hard", JSON.stringify(this.hard));
  }

  hardStateNow(): HardState {
    return { ...this.hard };
  }

  append(entries: readonly Entry[]): void {
    const first = entries[0];
    if (first === undefined) return;
    assertContiguous(entries);
    const firstStored = this.firstIndex();
    const lastNew = first.index + entries.length - 1;
    if (lastNew < firstStored) return; // all already compacted into the snapshot
    const from = Math.max(first.index, firstStored);
    assert(from <= this.last + 1, `append at ${from} leaves a gap after ${this.last}`);
    const kept = from - first.index;
    const prevTerm = this.term(from - 1) ?? 0;
    assert((entries[kept] as Entry).term >= prevTerm, "appended term follows the stored log");
    if (from <= this.last) {
      this.log.truncateFrom(from);
      this.tail.truncateFrom(from);
    }
    this.dropTermsFrom(from);
    const rows: LogRow[] = [];
    for (let i = kept; i < entries.length; i++) {
      const e = entries[i] as Entry;
      rows.push({ idx: e.index, term: e.term, type: typeCode(e.type), data: e.data });
      this.noteTerm(e.index, e.term);
    }
    this.log.insert(rows);
    this.tail.append(kept === 0 ? entries : entries.slice(kept));
    this.last = lastNew;
  }

  applySnapshot(snapshot: Snapshot): void {
    assert(snapshot.meta.index >= this.snapMeta.index, "snapshot must not go backwards");
    this.log.dropAll();
    this.tail.clear();
    this.runs = [];
    this.writeSnapshot(snapshot.meta, snapshot.data, "");
    this.setOffset(snapshot.meta.index, snapshot.meta.term);
    this.last = snapshot.meta.index;
  }

  createSnapshot(index: LogIndex, confState: ConfState, data: Uint8Array): Snapshot {
    this.writeSnapshot(this.newSnapshotMeta(index, confState), data, "");
    return this.snapshot();
  }

  /** The image stays in its file, read when asked for (a follower to catch up, a restart), not held here. */
  recordSnapshotFile(index: LogIndex, confState: ConfState, file: string): void {
    assert(this.path !== ":memory:" && file !== "" && !file.includes("/"), `snapshot file ${file} beside ${this.path}`);
    this.writeSnapshot(this.newSnapshotMeta(index, confState), undefined, file);
  }

  private newSnapshotMeta(index: LogIndex, confState: ConfState): SnapshotMeta {
    assert(index > this.snapMeta.index, `snapshot at ${index} not newer than ${this.snapMeta.index}`);
    assert(index <= this.last, `snapshot at ${index} beyond last index`);
    const term = this.term(index);
    assert(term !== undefined, "snapshot index has a term");
    return { index, term, confState };
  }

  compact(index: LogIndex): void {
    if (index <= this.offset.index) return;
    assert(index <= this.snapMeta.index, `compact ${index} past snapshot ${this.snapMeta.index}`);
    const term = this.term(index) as Term;
    this.dropBelow = index;
    this.log.dropOneTo(index);
    this.tail.dropTo(index);
    this.dropTermsTo(index);
    this.setOffset(index, term);
  }

  private setOffset(index: LogIndex, term: Term): void {
    this.offset = { index, term };
    this.q.setMeta.run("offset", JSON.stringify(this.offset));
  }

  /** `file`: the image is already durable in that file (a name beside the log): only the name is written. */
  private writeSnapshot(meta: SnapshotMeta, data: Uint8Array | undefined, file: string): void {
    this.snapMeta = { index: meta.index, term: meta.term, confState: copyConf(meta.confState) };
    this.q.setMeta.run("snap", JSON.stringify(this.snapMeta));
    if (file === "") this.db.query("INSERT OR REPLACE INTO snapshot (id, data) VALUES (1, ?)").run(data ?? EMPTY);
    else if (this.snapFile === "") this.db.exec("DELETE FROM snapshot");
    if (this.snapFile !== "" && this.snapFile !== file) this.superseded.push(this.snapFile);
    if (file !== this.snapFile) this.q.setMeta.run("snapfile", file);
    // Images built but never recorded (the leader's snapshot came first) go with this one.
    if (file !== "") removeSnapshotFiles(this.path, new Set([file, this.snapFile, ...this.superseded]), false);
    this.snapFile = file;
    this.snapData = data;
  }

  close(): void {
    this.db.close();
  }
}

const copyConf = (cs: ConfState): ConfState => ({ voters: cs.voters.slice(), learners: cs.learners.slice() });
