/**
 * @module ctld/log-store
 * The controller's append-only command log in SQLite (WAL, synchronous=FULL):
 * a command is on disk before its caller is answered, so an acknowledged
 * submission survives a crash. Restart = replay every entry through apply().
 * The Raft issue replaces this with the replicated log; the rows stay commands.
 * Failure policy: append() is all or nothing. A write the disk refuses (full) leaves the
 * log exactly as it was (same last index, no row) and throws StoreFullError, so the caller
 * applies nothing and answers ENOSPC; the next append simply tries again.
 */
import { Database } from "bun:sqlite";
import type { Command } from "../sched/model/commands.ts";
import { isDiskFull, StoreFullError } from "../lib/store-full.ts";

export interface LogStore {
  append(command: Command): number;
  /**
   * Several commands in one transaction (one fsync: group commit), all or none; returns the
   * index of the first. The controller batches the submissions that arrive together this way.
   */
  appendMany(commands: readonly Command[]): number;
  /** Entries in order, from the first. */
  entries(): Iterable<{ index: number; command: Command }>;
  lastIndex(): number;
  close(): void;
}

const SCHEMA_VERSION = 1;

/** `maxPageCount`: cap the file's size in pages (tests make a "full disk" with it). */
export function openLogStore(path: string, opts: { maxPageCount?: number } = {}): LogStore {
  const db = new Database(path, { create: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  // An append-only log touches only the right edge of its tree; replay reads it once in order.
  // SQLite's default 2 MiB page cache would only hold old rows in the controller's memory.
  db.exec("PRAGMA cache_size = -256"); // KiB (negative: a size, not a page count)
  if (opts.maxPageCount !== undefined) db.exec(`PRAGMA max_page_count = ${Math.floor(opts.maxPageCount)}`);
  db.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  db.exec("CREATE TABLE IF NOT EXISTS log (idx INTEGER PRIMARY KEY, command TEXT NOT NULL)");
  const version = db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'schema'").get();
  if (version === null) db.query("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(String(SCHEMA_VERSION));
  else if (Number(version.value) !== SCHEMA_VERSION) {
    throw new Error(`state log ${path} has schema ${version.value}, this spurctld reads ${SCHEMA_VERSION}`);
  }
  const insert = db.query<unknown, [number, string]>("INSERT INTO log (idx, command) VALUES (?, ?)");
  let last = db.query<{ m: number | null }, []>("SELECT max(idx) AS m FROM log").get()?.m ?? 0;
  const insertMany = db.transaction((first: number, texts: string[]) => {
    for (let i = 0; i < texts.length; i++) insert.run(first + i, texts[i] as string);
  });
  return {
    append(command) {
      const next = last + 1;
      try {
        insert.run(next, JSON.stringify(command));
      } catch (error) {
        // The statement failed as a whole (autocommit rolls it back): the log still ends at `last`.
        throw isDiskFull(error) ? new StoreFullError(error) : error;
      }
      last = next; // only a stored row moves the end of the log
      return last;
    },
    appendMany(commands) {
      const first = last + 1;
      try {
        insertMany(first, commands.map((c) => JSON.stringify(c)));
      } catch (error) {
        throw isDiskFull(error) ? new StoreFullError(error) : error;
      }
      last = first + commands.length - 1;
      return first;
    },
    *entries() {
      const rows = db.query<{ idx: number; command: string }, []>("SELECT idx, command FROM log ORDER BY idx");
      for (const row of rows.iterate()) yield { index: row.idx, command: JSON.parse(row.command) as Command };
    },
    lastIndex: () => last,
    close: () => db.close(),
  };
}
