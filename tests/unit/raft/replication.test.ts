/**
 * @module tests/unit/raft/replication
 * Log replication, Raft §5.3 (append, consistency check, conflict repair with fast back-off),
 * §5.4.2 / Figure 8 (a leader commits only entries of its own term by counting replicas),
 * and the flow-control limits maxSizePerMsg / maxInflightMsgs.
 */
import { describe, expect, it } from "vitest";
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";
import { E, TestCluster, entries, msg, storageWith } from "./harness.ts";

describe("§5.3 log replication", () => {
  it("a proposal at the leader is committed and applied everywhere, in order", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    for (const x of ["a", "b", "c"]) c.propose(1, x);
    for (const id of [1, 2, 3]) expect(c.appliedTexts(id)).toEqual(["a", "b", "c"]);
  });

  it("a follower forwards proposals to the leader", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.propose(3, "from-3");
    expect(c.appliedTexts(1)).toEqual(["from-3"]);
  });

  it("without a known leader a proposal is dropped, as a value", () => {
    const c = new TestCluster([1, 2, 3]);
    const r = c.node(2).propose("x");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe("ProposalDropped");
  });

  it("repairs a conflicting follower log, skipping a whole term per round trip", () => {
    // Leader-to-be: 10 entries of term 3. Node 3: 20 stale entries of term 2.
    const leaderLog = entries(4, 13, 3);
    const storages = new Map<number, MemoryStorage>([
      [1, storageWith([1, 2, 3], leaderLog, 3)],
      [2, storageWith([1, 2, 3], leaderLog, 3)],
      [3, storageWith([1, 2, 3], entries(4, 23, 2), 3)],
    ]);
    const c = new TestCluster([1, 2, 3], {}, storages);
    c.elect(1);
    const rejects = c.sent.filter((m) => m.from === 3 && m.type === "app-resp" && m.reject);
    expect(rejects.length).toBeGreaterThan(0);
    expect(rejects.length).toBeLessThanOrEqual(2); // not one per stale entry (20)
    expect(rejects[0]?.logTerm).toBe(2); // the hint names the conflicting term
    const leader = c.node(1);
    const follower = c.node(3);
    const last = leader.status().lastIndex;
    expect(follower.status().lastIndex).toBe(last);
    for (let i = 1; i <= last; i++) expect(follower.termAt(i)).toBe(leader.termAt(i));
  });

  it("a follower rejects an append whose previous entry it lacks, with a hint", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    const f = c.node(2);
    f.step(msg({ type: "app", from: 1, to: 2, term: 2, index: 40, logTerm: 2, entries: entries(41, 41, 2) }));
    const resp = f.ready().messages.find((m) => m.type === "app-resp");
    expect(resp).toMatchObject({ reject: true, index: 40 });
    expect(resp?.rejectHint).toBe(f.status().lastIndex);
  });
});

describe("§5.4.2 committing entries from previous terms (Figure 8)", () => {
  it("an old-term entry on a majority is not committed until an entry of the leader's term is", () => {
    // Node 1 holds entry 4 of term 2 that nobody else has; it becomes leader of term 4.
    const storages = new Map<number, MemoryStorage>([[1, storageWith([1, 2, 3], entries(4, 4, 2), 3)]]);
    for (const id of [2, 3]) storages.set(id, storageWith([1, 2, 3], [], 3));
    const c = new TestCluster([1, 2, 3], {}, storages);
    // Let only election traffic through: replication is driven by hand below.
    c.allow = (m) => m.type.includes("vote");
    c.elect(1);
    const leader = c.node(1);
    expect(leader.basicStatus().term).toBe(4);
    expect(leader.termAt(5)).toBe(4); // the new leader's empty entry
    // Node 2 now holds index 4 (term 2): a majority has it, but it is not of term 4.
    leader.step(msg({ type: "app-resp", from: 2, to: 1, term: 4, index: 4 }));
    expect(leader.basicStatus().commit).toBe(3);
    // Once the term-4 entry is on a majority, both commit together.
    leader.step(msg({ type: "app-resp", from: 2, to: 1, term: 4, index: 5 }));
    expect(leader.basicStatus().commit).toBe(5);
  });
});

describe("flow control limits", () => {
  it("maxSizePerMsg splits appends (but always sends at least one entry)", () => {
    const c = new TestCluster([1, 2], { maxSizePerMsg: 25 });
    c.elect(1);
    c.allow = (m) => !(m.from === 2 && m.type === "app-resp");
    for (let i = 0; i < 5; i++) c.node(1).propose("0123456789");
    c.stabilize();
    c.heal();
    c.tickAll(2);
    const apps = c.sent.filter((m) => m.type === "app" && m.to === 2 && m.entries.length > 0);
    for (const m of apps) {
      const bytes = m.entries.reduce((n, e) => n + e.data.byteLength, 0);
      expect(m.entries.length === 1 || bytes <= 25).toBe(true);
    }
    expect(c.appliedTexts(2)).toHaveLength(5);
  });

  it("maxInflightMsgs bounds unacknowledged appends to a follower", () => {
    const c = new TestCluster([1, 2, 3], { maxInflightMsgs: 2 });
    c.elect(1);
    c.propose(1, "warm-up"); // follower 2 is now in replicate state
    c.allow = (m) => !(m.from === 2 && m.type === "app-resp");
    const before = c.sent.length;
    for (let i = 0; i < 6; i++) {
      c.node(1).propose(`p${i}`);
      c.stabilize();
    }
    const apps = c.sent.slice(before).filter((m) => m.type === "app" && m.to === 2 && m.entries.length > 0);
    expect(apps).toHaveLength(2);
    // Acks (here: after the heal, via heartbeats) reopen the window and 2 catches up.
    c.heal();
    c.tickAll(E);
    expect(c.appliedTexts(2)).toHaveLength(7);
  });
});
