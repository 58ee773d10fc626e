/**
 * @module tests/unit/raft/log
 * The replica's log (src/raft/core/log.ts, log-unstable.ts) over MemoryStorage: matching,
 * conflict detection and repair (§5.3), the fast back-off search, size limits, commit that
 * never decreases and never overwrites committed entries, and snapshot restore.
 */
import { describe, expect, it } from "vitest";
import { RaftLog, limitSize } from "../../../src/raft/core/log.ts";
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";
import { entries } from "./harness.ts";

/** Stable 1..3 (terms 1,1,2) plus unstable 4..5 (term 3). */
function sampleLog(): RaftLog {
  const s = new MemoryStorage();
  s.append([...entries(1, 2, 1), ...entries(3, 3, 2)]);
  const log = new RaftLog(s);
  log.append(entries(4, 5, 3));
  return log;
}

describe("RaftLog", () => {
  it("reads terms across storage and the unstable tail", () => {
    const log = sampleLog();
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => log.term(i))).toEqual([0, 1, 1, 2, 3, 3, undefined]);
    expect(log.lastIndex()).toBe(5);
    expect(log.lastTerm()).toBe(3);
    expect(log.unstableEntries().map((e) => e.index)).toEqual([4, 5]);
  });

  it("§5.4.1 up-to-date: higher last term wins, then longer log", () => {
    const log = sampleLog();
    expect(log.isUpToDate(1, 4)).toBe(true);
    expect(log.isUpToDate(5, 3)).toBe(true);
    expect(log.isUpToDate(4, 3)).toBe(false);
    expect(log.isUpToDate(99, 2)).toBe(false);
  });

  it("maybeAppend: rejects on mismatch, ignores duplicates, truncates only on conflict", () => {
    const log = sampleLog();
    expect(log.maybeAppend(5, 2, 0, [])).toBeUndefined(); // wrong term at 5
    expect(log.maybeAppend(3, 2, 0, entries(4, 5, 3))).toBe(5); // already there: no change
    expect(log.unstableEntries().map((e) => e.term)).toEqual([3, 3]);
    expect(log.maybeAppend(3, 2, 4, entries(4, 4, 4))).toBe(4); // conflict at 4: replace
    expect([log.lastIndex(), log.term(4), log.committed]).toEqual([4, 4, 4]);
  });

  it("maybeAppend commits no further than the entries known to match the leader", () => {
    const log = sampleLog(); // 1..5; the leader only vouched for 1..4 so far
    expect(log.maybeAppend(3, 2, 5, entries(4, 4, 3))).toBe(4);
    expect(log.committed).toBe(4); // not 5: our entry 5 may still differ from the leader's
  });

  it("never overwrites committed entries and never lowers the commit index", () => {
    const log = sampleLog();
    log.commitTo(4);
    log.commitTo(2);
    expect(log.committed).toBe(4);
    expect(() => log.maybeAppend(3, 2, 4, entries(4, 4, 9))).toThrow(/committed/);
    expect(() => log.commitTo(9)).toThrow(/beyond last index/);
  });

  it("findConflictByTerm finds the last index whose term is <= the given one", () => {
    const log = sampleLog();
    expect(log.findConflictByTerm(5, 2)).toEqual({ index: 3, term: 2 });
    expect(log.findConflictByTerm(5, 1)).toEqual({ index: 2, term: 1 });
    expect(log.findConflictByTerm(5, 3)).toEqual({ index: 5, term: 3 });
    expect(log.findConflictByTerm(5, 0)).toEqual({ index: 0, term: 0 });
  });

  it("§5.4.2 maybeCommit only for an entry of the given term", () => {
    const log = sampleLog();
    expect(log.maybeCommit(3, 3)).toBe(false);
    expect(log.maybeCommit(4, 3)).toBe(true);
    expect(log.committed).toBe(4);
  });

  it("slices across the storage/unstable boundary within a byte limit (never empty)", () => {
    const log = sampleLog();
    const all = log.slice(1, 6, Number.POSITIVE_INFINITY);
    expect(all.ok && all.value.map((e) => e.index)).toEqual([1, 2, 3, 4, 5]);
    const few = log.slice(2, 6, 7); // payloads are 3 bytes ("2@1")
    expect(few.ok && few.value.map((e) => e.index)).toEqual([2, 3]);
    const one = log.slice(2, 6, 0);
    expect(one.ok && one.value.length).toBe(1);
    expect(limitSize(entries(1, 3, 1), 0)).toHaveLength(1);
  });

  it("reports compacted ranges and restores from a snapshot", () => {
    const s = new MemoryStorage();
    s.append(entries(1, 10, 1));
    s.createSnapshot(6, { voters: [1], learners: [] }, new Uint8Array([1]));
    s.compact(6);
    const log = new RaftLog(s);
    expect(log.firstIndex()).toBe(7);
    expect(log.committed).toBe(6); // the snapshot is committed by definition
    expect(log.slice(3, 8, 100).ok).toBe(false);
    log.restore({ meta: { index: 20, term: 5, confState: { voters: [1], learners: [] } }, data: new Uint8Array() });
    expect([log.firstIndex(), log.lastIndex(), log.term(20), log.committed]).toEqual([21, 20, 5, 20]);
    expect(log.nextCommittedEntries(100)).toEqual([]); // the snapshot is applied first
  });

  it("stableTo keeps entries that were replaced after the Ready was built", () => {
    const log = sampleLog();
    log.append(entries(5, 5, 4)); // replaces (5, term 3)
    log.unstable.stableTo(5, 3);
    expect(log.unstableEntries().map((e) => [e.index, e.term])).toEqual([[4, 3], [5, 4]]);
    log.unstable.stableTo(5, 4);
    expect(log.unstableEntries()).toEqual([]);
  });
});
