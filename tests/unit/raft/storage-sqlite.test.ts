/**
 * @module tests/unit/raft/storage-sqlite
 * SqliteStorage through the shared conformance suite, plus what only a disk has: state
 * survives reopening, and a write group interrupted mid-way leaves the previous prefix.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Database } from "bun:sqlite";
import { SqliteStorage } from "../../../src/raft/storage-sqlite.ts";
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
    db.exec("DELETE FROM log WHERE idx = 3");
    db.close();
    expect(() => new SqliteStorage(path)).toThrow(/gap/);
  });

  it("answers terms from memory exactly as the file has them, through overwrites, compaction, a rolled-back group and a reopen", () => {
    const path = file();
    const s = SqliteStorage.bootstrap(path, [1, 2, 3]);
    const check = (st: SqliteStorage) => {
      const db = new Database(path, { readonly: true });
      const rows = db.query<{ idx: number; term: number }, []>("SELECT idx, term FROM log ORDER BY idx").all();
      db.close();
      for (const r of rows) expect(st.term(r.idx)).toBe(r.term);
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
});
