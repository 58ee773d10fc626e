/**
 * @module tests/unit/raft/storage-sqlite
 * SqliteStorage through the shared conformance suite, plus what only a disk has: state
 * survives reopening, and a write group interrupted mid-way leaves the previous prefix;
 * snapshot images kept in files beside the log (raft/snapshot-file.ts) are read, replaced and
 * removed only once nothing durable refers to them.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Database } from "bun:sqlite";
import { SqliteStorage } from "../../../src/raft/storage-sqlite.ts";
import { SEGMENT_ENTRIES } from "../../../src/raft/storage-sqlite-segments.ts";
import { writeSnapshotFile } from "../../../src/raft/snapshot-file.ts";
import { entries } from "./harness.ts";
import { storageConformance } from "./storage.case.ts";

const dir = mkdtempSync(join(tmpdir(), "spur-raft-storage-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = () => join(dir, `s${n++}.sqlite`);

storageConformance("SqliteStorage", { fresh: () => new SqliteStorage(file()), bootstrap: (v) => SqliteStorage.bootstrap(file(), v) });

describe("SqliteStorage on disk", () => {
  it("reopens with the same log, hard state, snapshot and compaction point", () => {
    const path = file();
    const s = SqliteStorage.bootstrap(path, [1, 2, 3]);
    s.atomically(() => {
      s.append(entries(4, 20, 2));
      s.setHardState({ term: 2, vote: 1, commit: 18 });
    });
    s.createSnapshot(15, { voters: [1, 2, 3], learners: [] }, new Uint8Array([7, 7]));
    s.compact(10);
    s.close();
    const r = new SqliteStorage(path);
    expect([r.firstIndex(), r.lastIndex(), r.term(10), r.term(20)]).toEqual([11, 20, 2, 2]);
    expect(r.initialState()).toEqual({ hardState: { term: 2, vote: 1, commit: 18 }, confState: { voters: [1, 2, 3], learners: [] } });
    expect(r.snapshot().meta.index).toBe(15);
    expect([...r.snapshot().data]).toEqual([7, 7]);
    // Bootstrapping an existing store changes nothing.
    r.close();
    const again = SqliteStorage.bootstrap(path, [1, 2, 3]);
    expect(again.lastIndex()).toBe(20);
    again.close();
  });

  it("keeps an image in the file the snapshot worker wrote: read back, superseded only once durable, strays removed on open", () => {
    const path = file();
    const base = path.slice(dir.length + 1);
    const images = () => readdirSync(dir).filter((n) => n.startsWith(`${base}.snap-`)).sort();
    const conf = { voters: [1], learners: [] };
    const s = SqliteStorage.bootstrap(path, [1]);
    s.atomically(() => s.append(entries(2, 30, 1)));
    const first = writeSnapshotFile(path, 10, new Uint8Array([1, 0]));
    expect(first).toBe(`${base}.snap-10`);
    s.atomically(() => s.recordSnapshotFile(10, conf, first), false);
    expect([...s.snapshot().data]).toEqual([1, 0]);
    // as the driver records it: not durable; the image it replaces stays until a durable unit
    s.atomically(() => s.recordSnapshotFile(15, conf, writeSnapshotFile(path, 15, new Uint8Array([1, 5]))), false);
    expect(images()).toEqual([`${base}.snap-10`, `${base}.snap-15`]);
    s.atomically(() => s.setHardState({ term: 1, vote: 1, commit: 30 }));
    expect(images()).toEqual([`${base}.snap-15`]);
    // a unit that fails leaves the previous image, and the file it would have recorded goes
    const failed = writeSnapshotFile(path, 20, new Uint8Array([2, 0]));
    expect(() => s.atomically(() => {
      s.recordSnapshotFile(20, conf, failed);
      throw new Error("disk full");
    })).toThrow(/disk full/);
    expect(images()).toEqual([`${base}.snap-15`]);
    expect([s.snapshot().meta.index, ...s.snapshot().data]).toEqual([15, 1, 5]);
    // an image built but never recorded, and one cut off while written: nothing refers to them
    writeSnapshotFile(path, 25, new Uint8Array([2, 5]));
    writeFileSync(join(dir, `${base}.snap-26.tmp`), "partial");
    s.close();
    const r = new SqliteStorage(path);
    expect(images()).toEqual([`${base}.snap-15`]);
    expect([r.snapshot().meta.index, ...r.snapshot().data]).toEqual([15, 1, 5]);
    // the leader's snapshot is a row again: the file goes with the next durable unit
    r.atomically(() => r.applySnapshot({ meta: { index: 40, term: 2, confState: conf }, data: new Uint8Array([4, 0]) }));
    expect(images()).toEqual([]);
    r.close();
    const again = new SqliteStorage(path);
    expect([again.snapshot().meta.index, ...again.snapshot().data]).toEqual([40, 4, 0]);
    expect(existsSync(join(dir, first))).toBe(false);
    again.close();
  });

  it("opens a schema-2 file (images only in the log) as it is", () => {
    const path = file();
    const s = SqliteStorage.bootstrap(path, [1]);
    s.atomically(() => s.append(entries(2, 12, 1)));
    s.createSnapshot(10, { voters: [1], learners: [] }, new Uint8Array([9]));
    s.close();
    const db = new Database(path);
    db.query("UPDATE meta SET value = '2' WHERE key = 'schema'").run();
    db.query("DELETE FROM meta WHERE key = 'snapfile'").run();
    db.close();
    const r = new SqliteStorage(path);
    expect([r.lastIndex(), r.snapshot().meta.index, ...r.snapshot().data]).toEqual([12, 10, 9]);
    r.close();
  });

  it("a crash inside a write group leaves the previous consistent prefix", () => {
    const path = file();
    const s = new SqliteStorage(path);
    s.atomically(() => s.append(entries(1, 3, 1)));
    expect(() =>
      s.atomically(() => {
        s.append(entries(4, 6, 1));
        s.setHardState({ term: 1, vote: 0, commit: 6 });
        throw new Error("power lost");
      }),
    ).toThrow(/power lost/);
    s.close();
    const r = new SqliteStorage(path);
    expect([r.lastIndex(), r.hardStateNow().commit]).toEqual([3, 0]);
    r.close();
  });

  it("refuses a file whose log has a gap", () => {
    const path = file();
    const s = new SqliteStorage(path);
    s.append(entries(1, 5, 1));
    s.close();
    const { Database } = require("bun:sqlite") as typeof import("bun:sqlite");
    const db = new Database(path);
    db.exec("DELETE FROM log_0 WHERE idx = 3");
    db.close();
    expect(() => new SqliteStorage(path)).toThrow(/gap/);
  });

  it("answers terms from memory exactly as the file has them, through overwrites, compaction, a rolled-back group and a reopen", () => {
    const path = file();
    const s = SqliteStorage.bootstrap(path, [1, 2, 3]);
    const check = (st: SqliteStorage) => {
      const db = new Database(path, { readonly: true });
      const rows = db.query<{ idx: number; term: number }, []>("SELECT idx, term FROM log_0 ORDER BY idx").all();
      db.close();
      // Rows below the compaction point may stay in their segment until it is dropped.
      for (const r of rows) if (r.idx >= st.firstIndex()) expect(st.term(r.idx)).toBe(r.term);
      expect(st.term(st.lastIndex() + 1)).toBeUndefined();
    };
    s.atomically(() => s.append([...entries(4, 10, 2), ...entries(11, 14, 3)]));
    check(s);
    s.atomically(() => s.append(entries(12, 20, 4))); // overwrites 12..14 of term 3
    check(s);
    expect([s.term(11), s.term(12), s.term(20)]).toEqual([3, 4, 4]);
    expect(() => s.atomically(() => {
      s.append(entries(15, 25, 5));
      throw new Error("power lost");
    })).toThrow(/power lost/);
    expect([s.lastIndex(), s.term(15), s.term(20)]).toEqual([20, 4, 4]);
    s.atomically(() => s.setHardState({ term: 4, vote: 1, commit: 20 }), false);
    s.createSnapshot(12, { voters: [1, 2, 3], learners: [] }, new Uint8Array([1]));
    s.compact(11);
    expect([s.firstIndex(), s.term(11), s.term(12), s.term(10)]).toEqual([12, 3, 4, undefined]);
    check(s);
    s.close();
    const r = new SqliteStorage(path);
    check(r);
    expect([r.term(11), r.term(12), r.hardStateNow().commit]).toEqual([3, 4, 20]);
    r.atomically(() => r.append(entries(21, 22, 6)));
    check(r);
    r.close();
  });

  it("compaction drops whole segments; a schema-1 file (one log table) is converted on open", () => {
    // Indices as a log of 4096-entry segments would have them, scaled to this file's segments.
    const at = (n: number): number => (n * SEGMENT_ENTRIES) / 4096;
    const path = file();
    const s = SqliteStorage.bootstrap(path, [1]);
    const big = (from: number, to: number) => entries(from, to, 1);
    s.atomically(() => s.append(big(2, at(10000))));
    s.createSnapshot(at(9000), { voters: [1], learners: [] }, new Uint8Array([1]));
    s.compact(at(8500));
    const tables = () => {
      const db = new Database(path, { readonly: true });
      const names = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE name GLOB 'log*' ORDER BY name").all().map((r) => r.name);
      db.close();
      return names;
    };
    // one segment goes at once, the next with the next write: a compaction is not one long stall
    expect(tables()).toEqual(["log_1", "log_2"]);
    expect(s.entries(at(8500) + 1, at(8500) + 3, 1e9)).toMatchObject({ ok: true, value: [{ index: at(8500) + 1 }, { index: at(8500) + 2 }] });
    expect(s.entries(at(8500), at(8500) + 1, 1e9).ok).toBe(false);
    expect(s.entries(at(4096), at(4096) + 1, 1e9).ok).toBe(false);
    s.atomically(() => s.setHardState({ term: 1, vote: 1, commit: at(10000) }));
    expect(tables()).toEqual(["log_2"]); // the first two segments dropped; the third (holding the compaction point) kept
    s.atomically(() => s.setHardState({ term: 1, vote: 1, commit: at(10000) }));
    expect(tables()).toEqual(["log_2"]);
    // a store reopened before the drops are done finishes them
    s.atomically(() => s.append(big(at(10000) + 1, at(20000))));
    s.createSnapshot(at(19000), { voters: [1], learners: [] }, new Uint8Array([2]));
    s.compact(at(18000)); // segments 2 and 3 below; 4 holds at(18000)
    expect(tables()).toEqual(["log_3", "log_4"]);
    s.close();
    const again = new SqliteStorage(path);
    expect([again.firstIndex(), again.lastIndex(), again.term(at(18000) + 1)]).toEqual([at(18000) + 1, at(20000), 1]);
    expect(again.entries(at(18000) + 1, at(18000) + 3, 1e9)).toMatchObject({ ok: true, value: [{ index: at(18000) + 1 }, { index: at(18000) + 2 }] });
    again.atomically(() => again.setHardState({ term: 1, vote: 1, commit: at(20000) }));
    expect(tables()).toEqual(["log_4"]);
    again.close();
    // Write the same log the old way, then open it.
    const old = file();
    const db = new Database(old, { create: true });
    db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    db.exec("CREATE TABLE log (idx INTEGER PRIMARY KEY, term INTEGER NOT NULL, type INTEGER NOT NULL, data BLOB NOT NULL)");
    db.exec("INSERT INTO meta VALUES ('schema', '1'), ('hard', '{\"term\":1,\"vote\":0,\"commit\":5000}')");
    const ins = db.query("INSERT INTO log VALUES (?, 1, 0, ?)");
    db.transaction(() => {
      for (let i = 1; i <= 5_000; i++) ins.run(i, new TextEncoder().encode(`${i}@1`));
    })();
    db.close();
    const r = new SqliteStorage(old);
    expect([r.firstIndex(), r.lastIndex(), r.term(4_500)]).toEqual([1, 5_000, 1]);
    expect(r.entries(4_095, 4_098, 1e9)).toMatchObject({ ok: true, value: [{ index: 4_095 }, { index: 4_096 }, { index: 4_097 }] });
    r.close();
    // a file made before segment sizes were written keeps its 4096-entry segments
    const oldTables = new Database(old, { readonly: true });
    expect(oldTables.query("SELECT name FROM sqlite_master WHERE name GLOB 'log_*' ORDER BY name").all()).toEqual([{ name: "log_0" }, { name: "log_1" }]);
    expect(oldTables.query("SELECT value FROM meta WHERE key = 'segment_entries'").get()).toEqual({ value: "4096" });
    oldTables.close();
  });
});
