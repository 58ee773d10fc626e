/**
 * @module raft/storage-sqlite-segments
 * The Raft log's rows in SQLite, split into tables of E consecutive indices (log_<n> holds
 * indices n*E ... (n+1)*E-1; E is the file's, meta "segment_entries"). Compaction drops
 * whole tables: SQLite frees a dropped table's pages in a few page writes, where deleting
 * the same rows one by one rewrote the b-tree (measured: 320 ms for 18k rows of 600 bytes,
 * 840 ms for 98k, against about 4 ms a segment dropped, 15-20 ms on a busy day). Rows below
 * the compaction point stay until their segment goes (SqliteStorage drops one segment a write
 * transaction); the store's offset says they are gone. A dropped table's pages are still
 * read to be freed: 4096 entries of 1.5 KB made a snapshot's write unit 11-13 ms on this
 * machine (40-80 ms with three replicas on its two cores), 1024 entries 3-5 ms, so new files
 * use 1024; files made before keep 4096 (they have no "segment_entries" meta). Only
 * SqliteStorage uses this, inside its transactions.
 * Failure policy: none of its own; SQLite errors go to the caller's transaction.
 */
import type { Database, Statement } from "bun:sqlite";

/** Entries a segment of a new file holds. */
export const SEGMENT_ENTRIES = 1024;
/** Of a file made before its segment size was written in it. */
const SEGMENT_ENTRIES_BEFORE = 1 << 12;
const SEGMENT_META = "segment_entries";
/** A row's `type` for a normal entry (1: a configuration change). */
export const NORMAL_ENTRY = 0;

export interface LogRow {
  idx: number;
  term: number;
  type: number;
  data: Uint8Array;
}

interface Statements {
  insert: Statement<unknown, [number, number, number, Uint8Array]>;
  range: Statement<LogRow, [number, number]>;
  truncateFrom: Statement<unknown, [number]>;
}

/**
 * The segment size of the log in `db`; for a file that does not say, 4096 when it already has
 * a log (made before) and SEGMENT_ENTRIES for a new one, written to it (when `writable`).
 */
export function segmentEntriesOf(db: Database, writable: boolean): number {
  const get = (key: string) => db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key)?.value;
  const stated = get(SEGMENT_META);
  if (stated !== undefined) return Number(stated);
  const entries = get("schema") === undefined ? SEGMENT_ENTRIES : SEGMENT_ENTRIES_BEFORE;
  if (writable) db.query("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").run(SEGMENT_META, String(entries));
  return entries;
}

/** Segment numbers the file has a table for, ascending. */
function segmentTables(db: Database): number[] {
  const rows = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'log_[0-9]*'").all();
  return rows.map((r) => Number(r.name.slice(4))).sort((a, b) => a - b);
}

export class LogSegments {
  /** Segment numbers that have a table, ascending. */
  private segments: number[] = [];
  private readonly statements = new Map<number, Statements>();

  constructor(private readonly db: Database, private readonly entries: number) {
    this.segments = segmentTables(db);
  }

  private segmentOf(idx: number): number {
    return Math.floor(idx / this.entries);
  }

  /** What atomically() saves, to put back if its transaction rolls back. */
  save(): number[] {
    return this.segments.slice();
  }

  restore(saved: number[]): void {
    this.segments = saved;
    // A rolled-back CREATE or DROP leaves prepared statements for the wrong schema: start over.
    for (const s of this.statements.values()) finalize(s);
    this.statements.clear();
  }

  insert(rows: readonly LogRow[]): void {
    for (const r of rows) this.ensure(this.segmentOf(r.idx)).insert.run(r.idx, r.term, r.type, r.data);
  }

  /** Rows [lo, hi) in index order; stops after the row that brings the payload to `maxBytes`. */
  range(lo: number, hi: number, maxBytes: number): LogRow[] {
    const out: LogRow[] = [];
    let bytes = 0;
    for (const seg of this.segments) {
      if (seg < this.segmentOf(lo)) continue;
      if (seg > this.segmentOf(hi - 1)) break;
      for (const row of this.stmts(seg).range.iterate(lo, hi)) {
        out.push(row);
        bytes += row.data?.byteLength ?? 0;
        if (bytes >= maxBytes) return out;
      }
    }
    return out;
  }

  /** Every (idx, term) from `after` + 1 on, in index order (loading). */
  *terms(after: number): Generator<{ idx: number; term: number }> {
    for (const seg of this.segments) {
      if ((seg + 1) * this.entries - 1 <= after) continue;
      yield* this.db.query<{ idx: number; term: number }, [number]>(`SELECT idx, term FROM log_${seg} WHERE idx > ? ORDER BY idx`).iterate(after);
    }
  }

  /** Delete rows from index `from` on (a conflicting suffix being overwritten). */
  truncateFrom(from: number): void {
    const first = this.segmentOf(from);
    for (const seg of this.segments.filter((s) => s > first)) this.drop(seg);
    if (this.segments.includes(first)) this.stmts(first).truncateFrom.run(from);
  }

  /** Drop the lowest segment whose indices are all at or below `index`; false when there is none. */
  dropOneTo(index: number): boolean {
    const seg = this.segments[0];
    if (seg === undefined || (seg + 1) * this.entries - 1 > index) return false;
    this.drop(seg);
    return true;
  }

  dropAll(): void {
    for (const seg of this.segments.slice()) this.drop(seg);
  }

  private drop(seg: number): void {
    const s = this.statements.get(seg);
    if (s !== undefined) finalize(s);
    this.statements.delete(seg);
    this.db.exec(`DROP TABLE IF EXISTS log_${seg}`);
    this.segments = this.segments.filter((x) => x !== seg);
  }

  private ensure(seg: number): Statements {
    if (!this.segments.includes(seg)) {
      this.db.exec(`CREATE TABLE IF NOT EXISTS log_${seg} (idx INTEGER PRIMARY KEY, term INTEGER NOT NULL, type INTEGER NOT NULL, data BLOB NOT NULL)`);
      this.segments.push(seg);
      this.segments.sort((a, b) => a - b);
    }
    return this.stmts(seg);
  }

  private stmts(seg: number): Statements {
    let s = this.statements.get(seg);
    if (s === undefined) {
      s = {
        insert: this.db.prepare(`INSERT OR REPLACE INTO log_${seg} (idx, term, type, data) VALUES (?, ?, ?, ?)`),
        range: this.db.prepare(`SELECT idx, term, type, data FROM log_${seg} WHERE idx >= ? AND idx < ? ORDER BY idx`),
        truncateFrom: this.db.prepare(`DELETE FROM log_${seg} WHERE idx >= ?`),
      };
      this.statements.set(seg, s);
    }
    return s;
  }
}

/**
 * Rows (after, upTo] in index order, read through another connection to the same file (the
 * controller's snapshot worker, on its own thread, while the replica goes on writing). Each
 * segment is read in its own statement: committed rows never change, and a segment is only
 * dropped once compaction passed all of it, which a reader of indices past the last snapshot
 * never reaches. Rows are yielded as read, so the caller holds one at a time.
 */
export function* readLogRows(db: Database, after: number, upTo: number): Generator<LogRow> {
  if (upTo <= after) return;
  const entries = segmentEntriesOf(db, false);
  for (const seg of segmentTables(db)) {
    if (seg < Math.floor((after + 1) / entries)) continue;
    if (seg > Math.floor(upTo / entries)) break;
    const q = db.prepare<LogRow, [number, number]>(`SELECT idx, term, type, data FROM log_${seg} WHERE idx > ? AND idx <= ? ORDER BY idx`);
    try {
      yield* q.iterate(after, upTo);
    } finally {
      q.finalize();
    }
  }
}

function finalize(s: Statements): void {
  s.insert.finalize();
  s.range.finalize();
  s.truncateFrom.finalize();
}
