/**
 * @module tests/unit/raft/ready
 * The driver contract (etcd's RawNode): Ready carries what to persist, send and apply; the
 * next one comes only after advance(); mustSync is set exactly when term, vote or entries
 * change; a restart rebuilds everything from Storage alone.
 */
import { describe, expect, it } from "vitest";
import { createRaft } from "../../../src/raft/core/ready.ts";
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";
import { E, TestCluster, fixedRng, msg } from "./harness.ts";

describe("Ready / advance contract", () => {
  it("a fresh bootstrapped node first hands out its committed bootstrap entries", () => {
    const storage = MemoryStorage.bootstrap([1, 2, 3]);
    const node = createRaft({ id: 1, electionTicks: E }, storage, fixedRng);
    expect(node.hasReady()).toBe(true);
    const rd = node.ready();
    expect(rd.entries).toEqual([]); // already in storage
    expect(rd.committedEntries.map((e) => e.type)).toEqual(["conf-change", "conf-change", "conf-change"]);
    expect(node.hasReady()).toBe(false); // while a Ready is outstanding
    expect(() => node.ready()).toThrow(/advance/);
    node.advance(rd);
    expect(node.status().confState).toEqual({ voters: [1, 2, 3], learners: [] });
    expect(node.hasReady()).toBe(false);
  });

  it("mustSync for a new vote or new entries, not for a commit-only change", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.propose(1, "x");
    const f = c.node(2);
    // A heartbeat that only moves the commit index needs no fsync.
    c.node(1).propose("y");
    c.process(1);
    for (const m of c.queue.filter((m) => m.to === 2)) f.step(m);
    c.queue = c.queue.filter((m) => m.to !== 2);
    const withEntries = f.ready();
    expect(withEntries.entries.length).toBeGreaterThan(0);
    expect(withEntries.mustSync).toBe(true);
    c.peer(2).storage.append(withEntries.entries);
    f.advance(withEntries);
    f.step(msg({ type: "heartbeat", from: 1, to: 2, term: 2, commit: f.status().lastIndex }));
    const commitOnly = f.ready();
    expect(commitOnly.hardState?.commit).toBe(f.status().lastIndex);
    expect(commitOnly.entries).toEqual([]);
    expect(commitOnly.mustSync).toBe(false);
    f.advance(commitOnly);
  });

  it("reports soft state changes and hard state only when it changed", () => {
    const c = new TestCluster([1]);
    const node = c.node(1);
    c.tick(1, E);
    const rd = node.ready();
    expect(rd.softState).toEqual({ lead: 1, state: "leader" });
    expect(rd.hardState).toMatchObject({ term: 2, vote: 1 });
    expect(rd.mustSync).toBe(true);
    c.peer(1).storage.append(rd.entries);
    c.peer(1).storage.setHardState(rd.hardState ?? { term: 0, vote: 0, commit: 0 });
    node.advance(rd);
    node.tick();
    if (node.hasReady()) {
      const next = node.ready();
      expect(next.softState).toBeUndefined();
      node.advance(next);
    }
  });

  it("a restart restores term, vote and commit from storage", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.propose(1, "x");
    c.propose(1, "y");
    const before = c.node(2).basicStatus();
    c.restart(2);
    const after = c.node(2).basicStatus();
    expect(after).toMatchObject({ term: before.term, vote: before.vote, state: "follower", lead: 0 });
    expect(after.commit).toBe(before.commit);
    c.stabilize(); // re-applies the log behind the (empty) snapshot
    expect(c.appliedTexts(2)).toEqual(["x", "y"]);
  });
});
