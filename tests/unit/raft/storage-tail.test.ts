/**
 * The SQLite store's in-memory tail (raft/storage-tail.ts): whatever the store appends,
 * overwrites, compacts or rolls back, entries() answers exactly what the file holds (a fresh
 * store opened on the same file reads it from disk). A small cache (a few entries' bytes) makes
 * eviction happen all the time. SEED=n replays a run (the seed is printed on failure).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRng } from "../../../src/lib/rng.ts";
import type { Entry } from "../../../src/raft/core/types.ts";
import { SqliteStorage } from "../../../src/raft/storage-sqlite.ts";
import { TailCache } from "../../../src/raft/storage-tail.ts";

const dir = mkdtempSync(join(tmpdir(), "spur-raft-tail-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SEEDS = process.env.SEED ? [Number(process.env.SEED)] : [1, 2, 3, 4, 5, 6];

const entry = (index: number, term: number, size: number): Entry => ({ index, term, type: "normal", data: new Uint8Array(size).fill((index * 7 + term) & 255) });
const plain = (es: Entry[]) => es.map((e) => [e.index, e.term, e.type, [...e.data].join(",")]);

describe("SqliteStorage's tail cache", () => {
  for (const seed of SEEDS) {
    it(`answers entries() as the file does through appends, overwrites, rollbacks and compaction (seed ${seed})`, () => {
      const rng = createRng(seed);
      const path = join(dir, `tail-${seed}.sqlite`);
      const s = SqliteStorage.bootstrap(path, [1, 2, 3]);
      // bootstrapped before the tail was sized: reopen with a small one
      s.close();
      const st = new SqliteStorage(path, { tailBytes: rng.int(200, 2000) });
      let term = 2;
      let snapshotAt = 0;
      for (let step = 0; step < 120; step++) {
        const op = rng.int(0, 9);
        const last = st.lastIndex();
        if (op <= 5) {
          // append at the end, or overwrite a suffix (never below the first stored index)
          const from = op === 5 ? rng.int(Math.max(st.firstIndex(), 4), last + 1) : last + 1; // 1..3 are the committed bootstrap entries
          if (op === 5) term++;
          const es = Array.from({ length: rng.int(1, 12) }, (_, k) => entry(from + k, term, rng.int(0, 90)));
          st.atomically(() => st.append(es));
        } else if (op === 6) {
          // a group that fails: an append at the end or an overwrite, rolled back
          const from = rng.int(0, 1) === 0 ? last + 1 : rng.int(Math.max(st.firstIndex(), 4), last + 1);
          const es = Array.from({ length: rng.int(1, 5) }, (_, k) => entry(from + k, term + 1, 10));
          expect(() => st.atomically(() => {
            st.append(es);
            throw new Error("power lost");
          })).toThrow(/power lost/);
        } else if (op === 7 && last > snapshotAt + 3) {
          snapshotAt = rng.int(snapshotAt + 1, last - 1);
          st.createSnapshot(snapshotAt, { voters: [1, 2, 3], learners: [] }, new Uint8Array([1]));
          st.compact(rng.int(st.firstIndex() - 1, snapshotAt));
        } else {
          // reads only
        }
        const disk = new SqliteStorage(path);
        expect([disk.firstIndex(), disk.lastIndex()], `seed ${seed} step ${step}`).toEqual([st.firstIndex(), st.lastIndex()]);
        for (let k = 0; k < 4; k++) {
          const lo = rng.int(st.firstIndex(), st.lastIndex() + 1);
          const hi = rng.int(lo, st.lastIndex() + 1);
          const max = rng.int(0, 1) === 0 ? Number.MAX_SAFE_INTEGER : rng.int(1, 400);
          const a = st.entries(lo, hi, max);
          const b = disk.entries(lo, hi, max);
          expect(a.ok && b.ok, `seed ${seed} step ${step}`).toBe(true);
          if (a.ok && b.ok) expect(plain(a.value), `seed ${seed} step ${step} entries ${lo}..${hi} max ${max}`).toEqual(plain(b.value));
        }
        disk.close();
      }
      st.close();
    });
  }
});

describe("TailCache", () => {
  it("holds a contiguous suffix within its bytes, and nothing after a gap", () => {
    const t = new TailCache(64 * 3 + 30);
    t.append([entry(1, 1, 10), entry(2, 1, 10)]);
    expect(t.slice(1, 3)?.map((e) => e.index)).toEqual([1, 2]);
    t.append([entry(3, 1, 10), entry(4, 1, 10)]);
    expect([t.first(), t.slice(1, 2)]).toEqual([2, undefined]);
    expect(t.slice(2, 5)?.map((e) => e.index)).toEqual([2, 3, 4]);
    expect(t.slice(4, 6)).toBeUndefined();
    t.truncateFrom(4);
    expect(t.slice(2, 4)?.map((e) => e.index)).toEqual([2, 3]);
    t.append([entry(9, 2, 1)]);
    expect([t.first(), t.slice(9, 10)?.length]).toEqual([9, 1]);
    t.dropTo(9);
    expect(t.first()).toBeUndefined();
  });
});
