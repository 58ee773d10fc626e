/**
 * @module tests/unit/raft/progress
 * The leader's per-follower bookkeeping: quorum arithmetic, the in-flight window, and the
 * probe / replicate / snapshot states with stale-answer handling (etcd's tracker).
 */
import { describe, expect, it } from "vitest";
import { Inflights } from "../../../src/raft/core/inflights.ts";
import { Progress } from "../../../src/raft/core/progress.ts";
import { committedIndex, voteResult } from "../../../src/raft/core/quorum.ts";

const progress = (match: number, next: number): Progress => new Progress(match, next, false, new Inflights(3, 0));

describe("quorum", () => {
  it("commits the index held by a majority", () => {
    const match = new Map([[1, 9], [2, 5], [3, 7]]);
    expect(committedIndex([1, 2, 3], (id) => match.get(id) ?? 0)).toBe(7);
    expect(committedIndex([1, 2, 3, 4], (id) => ({ 1: 9, 2: 5, 3: 7, 4: 1 })[id] ?? 0)).toBe(5);
  });

  it("tallies votes: won, lost, or still pending", () => {
    const v = (entries: [number, boolean][]) => voteResult([1, 2, 3], new Map(entries));
    expect(v([[1, true], [2, true]])).toBe("won");
    expect(v([[1, true], [2, false]])).toBe("pending");
    expect(v([[1, true], [2, false], [3, false]])).toBe("lost");
  });
});

describe("Inflights", () => {
  it("bounds count and bytes and frees up to an acknowledged index", () => {
    const f = new Inflights(3, 100);
    f.add(5, 10);
    f.add(7, 10);
    expect(f.full()).toBe(false);
    f.add(9, 10);
    expect(f.full()).toBe(true);
    f.freeLE(7);
    expect([f.count, f.bytes, f.full()]).toEqual([1, 10, false]);
    f.add(10, 95);
    expect(f.full()).toBe(true); // by bytes
    expect(() => f.add(11, 1)).toThrow(/full/);
  });
});

describe("Progress", () => {
  it("probe: one append at a time; an answer moves to replicate", () => {
    const pr = progress(0, 5);
    pr.sentEntries(5, 2, 20);
    expect(pr.isPaused()).toBe(true);
    expect(pr.maybeUpdate(6)).toBe(true);
    pr.becomeReplicate();
    expect([pr.state, pr.next, pr.isPaused()]).toEqual(["replicate", 7, false]);
  });

  it("replicate: sends optimistically until the window is full", () => {
    const pr = progress(4, 5);
    pr.becomeReplicate();
    for (const next of [5, 6, 7]) pr.sentEntries(next, 1, 1);
    expect([pr.next, pr.isPaused()]).toEqual([8, true]);
  });

  it("ignores stale rejections and backs off to the hint otherwise", () => {
    const pr = progress(0, 10);
    expect(pr.maybeDecrTo(5, 2)).toBe(false); // not an answer to our last probe (9)
    expect(pr.maybeDecrTo(9, 3)).toBe(true);
    expect(pr.next).toBe(4);
    const rep = progress(6, 7);
    rep.becomeReplicate();
    expect(rep.maybeDecrTo(6, 0)).toBe(false); // already matched there
    expect(rep.maybeDecrTo(8, 0)).toBe(true);
    expect(rep.next).toBe(7);
  });

  it("snapshot state pauses appends; leaving it probes past the snapshot", () => {
    const pr = progress(2, 3);
    pr.becomeSnapshot({ meta: { index: 40, term: 3, confState: { voters: [], learners: [] } }, data: new Uint8Array() });
    expect(pr.isPaused()).toBe(true);
    pr.becomeProbe();
    expect([pr.state, pr.next]).toEqual(["probe", 41]);
  });
});
