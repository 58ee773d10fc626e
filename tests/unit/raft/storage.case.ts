/**
 * @module tests/unit/raft/storage.case
 * ONE conformance suite for every WritableStorage (hono's runTest pattern): MemoryStorage
 * and SqliteStorage must behave identically for the core and the driver.
 */
import { describe, expect, it } from "vitest";
import type { NodeId } from "../../../src/raft/core/types.ts";
import type { WritableStorage } from "../../../src/raft/core/ports.ts";
import { entries } from "./harness.ts";

export interface StorageFactory {
  fresh(): WritableStorage;
  bootstrap(voters: NodeId[]): WritableStorage;
}

export function storageConformance(name: string, f: StorageFactory): void {
  describe(`${name} (storage conformance)`, () => {
    it("bootstraps a cluster as committed conf-change entries at term 1", () => {
      const s = f.bootstrap([1, 2, 3]);
      expect([s.firstIndex(), s.lastIndex(), s.term(3)]).toEqual([1, 3, 1]);
      expect(s.initialState().hardState).toEqual({ term: 1, vote: 0, commit: 3 });
      const got = s.entries(1, 4, 1 << 20);
      expect(got.ok && got.value.map((e) => e.type)).toEqual(["conf-change", "conf-change", "conf-change"]);
    });

    it("appends, overwrites a suffix, and rejects gaps", () => {
      const s = f.fresh();
      s.append(entries(1, 5, 1));
      s.append(entries(4, 6, 2));
      expect([3, 4, 5, 6].map((i) => s.term(i))).toEqual([1, 2, 2, 2]);
      s.append(entries(5, 5, 3)); // a shorter overwrite drops the rest of the suffix
      expect([s.lastIndex(), s.term(5), s.term(6)]).toEqual([5, 3, undefined]);
      expect(() => s.append(entries(9, 9, 3))).toThrow(/gap/);
      expect(() => s.append([...entries(7, 7, 3), ...entries(9, 9, 3)])).toThrow(/contiguous/);
    });

    it("keeps payload bytes and entry types exactly", () => {
      const s = f.fresh();
      const data = new Uint8Array([0, 255, 1, 128]);
      s.append([{ index: 1, term: 1, type: "conf-change", data }, { index: 2, term: 1, type: "normal", data: new Uint8Array(0) }]);
      const got = s.entries(1, 3, 1 << 20);
      expect(got.ok && got.value.map((e) => [e.type, [...e.data]])).toEqual([["conf-change", [0, 255, 1, 128]], ["normal", []]]);
    });

    it("serves entries within bounds and a byte limit; reports compaction", () => {
      const s = f.fresh();
      s.append(entries(1, 10, 1));
      const r = s.entries(2, 6, 6);
      expect(r.ok && r.value.map((e) => e.index)).toEqual([2, 3]);
      const beyond = s.entries(5, 12, 100);
      expect(beyond.ok ? "" : beyond.error.code).toBe("Unavailable");
      s.createSnapshot(5, { voters: [1], learners: [] }, new Uint8Array([9]));
      expect(s.snapshot().meta).toEqual({ index: 5, term: 1, confState: { voters: [1], learners: [] } });
      expect(s.firstIndex()).toBe(1); // a snapshot alone does not drop the log
      s.compact(4);
      expect(s.firstIndex()).toBe(5);
      const gone = s.entries(3, 6, 100);
      expect(gone.ok ? "" : gone.error.code).toBe("Compacted");
      expect(s.term(4)).toBe(1); // the compaction point keeps its term
      expect(s.term(3)).toBeUndefined();
      expect(() => s.compact(7)).toThrow(/past snapshot/);
      expect([...s.snapshot().data]).toEqual([9]);
    });

    it("applying a snapshot replaces the log; the hard-state term never goes back", () => {
      const s = f.fresh();
      s.append(entries(1, 3, 1));
      s.applySnapshot({ meta: { index: 50, term: 4, confState: { voters: [1, 2], learners: [3] } }, data: new Uint8Array([1, 2]) });
      expect([s.firstIndex(), s.lastIndex(), s.term(50)]).toEqual([51, 50, 4]);
      expect(s.initialState().confState).toEqual({ voters: [1, 2], learners: [3] });
      s.append(entries(51, 52, 4));
      expect(s.lastIndex()).toBe(52);
      s.setHardState({ term: 5, vote: 1, commit: 50 });
      expect(s.hardStateNow()).toEqual({ term: 5, vote: 1, commit: 50 });
      expect(() => s.setHardState({ term: 4, vote: 0, commit: 50 })).toThrow(/decrease/);
    });

    it("runs a group of writes through atomically()", () => {
      const s = f.fresh();
      s.atomically(() => {
        s.append(entries(1, 2, 1));
        s.setHardState({ term: 1, vote: 1, commit: 2 });
      });
      expect([s.lastIndex(), s.hardStateNow().commit]).toEqual([2, 2]);
    });
  });
}
