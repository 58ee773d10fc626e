/**
 * @module tests/unit/raft/storage-memory
 * MemoryStorage: the Storage read side the core relies on and the driver's writer, with the
 * paired checks at the boundary (contiguous on write, contiguous on read back).
 */
import { describe, expect, it } from "vitest";
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";
import { entries } from "./harness.ts";

describe("MemoryStorage", () => {
  it("bootstraps a cluster as committed conf-change entries at term 1", () => {
    const s = MemoryStorage.bootstrap([1, 2, 3]);
    expect([s.firstIndex(), s.lastIndex(), s.term(3)]).toEqual([1, 3, 1]);
    expect(s.initialState().hardState).toEqual({ term: 1, vote: 0, commit: 3 });
  });

  it("appends, overwrites a suffix, and rejects gaps", () => {
    const s = new MemoryStorage();
    s.append(entries(1, 5, 1));
    s.append(entries(4, 6, 2));
    expect([4, 5, 6].map((i) => s.term(i))).toEqual([2, 2, 2]);
    expect(() => s.append(entries(9, 9, 2))).toThrow(/gap/);
    expect(() => s.append([...entries(7, 7, 2), ...entries(9, 9, 2)])).toThrow(/contiguous/);
  });

  it("serves entries within bounds and a byte limit; reports compaction", () => {
    const s = new MemoryStorage();
    s.append(entries(1, 10, 1));
    const r = s.entries(2, 6, 6);
    expect(r.ok && r.value.map((e) => e.index)).toEqual([2, 3]);
    s.createSnapshot(5, { voters: [1], learners: [] }, new Uint8Array([9]));
    s.compact(4);
    expect(s.firstIndex()).toBe(5);
    const gone = s.entries(3, 6, 100);
    expect(gone.ok ? "" : gone.error.code).toBe("Compacted");
    expect(s.term(4)).toBe(1); // the compaction point keeps its term
    expect(s.term(3)).toBeUndefined();
    expect(() => s.compact(7)).toThrow(/past snapshot/);
  });

  it("applying a snapshot replaces the log; the hard-state term never goes back", () => {
    const s = new MemoryStorage();
    s.append(entries(1, 3, 1));
    s.applySnapshot({ meta: { index: 50, term: 4, confState: { voters: [1, 2], learners: [3] } }, data: new Uint8Array([1, 2]) });
    expect([s.firstIndex(), s.lastIndex(), s.term(50)]).toEqual([51, 50, 4]);
    expect(s.initialState().confState).toEqual({ voters: [1, 2], learners: [3] });
    s.setHardState({ term: 5, vote: 1, commit: 50 });
    expect(() => s.setHardState({ term: 4, vote: 0, commit: 50 })).toThrow(/decrease/);
  });
});
