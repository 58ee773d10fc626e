/**
 * @module tests/unit/raft/storage-sqlite
 * SqliteStorage through the shared conformance suite, plus what only a disk has: state
 * survives reopening, and a write group interrupted mid-way leaves the previous prefix.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
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
});
