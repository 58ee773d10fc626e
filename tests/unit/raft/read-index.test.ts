/**
 * @module tests/unit/raft/read-index
 * Linearizable reads without log writes (Raft §8, thesis §6.4 ReadIndex): the read point is
 * the leader's commit index, released only after a majority confirms the leader in a
 * heartbeat round, and only once the leader has committed an entry of its own term.
 */
import { describe, expect, it } from "vitest";
import { TestCluster } from "./harness.ts";

describe("§8 / thesis §6.4 ReadIndex", () => {
  it("the leader answers with its commit index after a heartbeat round", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.propose(1, "x");
    const commit = c.node(1).basicStatus().commit;
    expect(c.node(1).readIndex("r1").ok).toBe(true);
    c.stabilize();
    expect(c.peer(1).readStates).toEqual([{ index: commit, context: "r1" }]);
    const confirming = c.sent.filter((m) => m.type === "heartbeat" && m.context === "r1");
    expect(confirming).toHaveLength(2);
  });

  it("a follower's read is forwarded and answered with the leader's read point", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.propose(1, "x");
    expect(c.node(3).readIndex("f1").ok).toBe(true);
    c.stabilize();
    expect(c.peer(3).readStates).toEqual([{ index: c.node(1).basicStatus().commit, context: "f1" }]);
  });

  it("a leader cut off from the majority cannot confirm a read", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.isolate(1);
    c.node(1).readIndex("stale");
    c.stabilize();
    c.tick(1, 2);
    c.stabilize();
    expect(c.peer(1).readStates).toEqual([]);
  });

  it("a new leader waits until an entry of its term is committed", () => {
    const c = new TestCluster([1, 2, 3]);
    c.allow = (m) => m.type.includes("vote") || m.type.startsWith("heartbeat");
    c.elect(1);
    expect(c.node(1).readIndex("early").ok).toBe(true);
    c.tick(1);
    c.stabilize(); // heartbeats answered, but the empty entry of term 2 is not committed
    expect(c.peer(1).readStates).toEqual([]);
    c.heal();
    c.tick(1);
    c.stabilize();
    expect(c.peer(1).readStates.map((r) => r.context)).toEqual(["early"]);
    expect(c.peer(1).readStates[0]?.index).toBe(c.node(1).basicStatus().commit);
  });

  it("a single voter answers at once", () => {
    const c = new TestCluster([1]);
    c.elect(1);
    c.node(1).readIndex("solo");
    c.stabilize();
    expect(c.peer(1).readStates.map((r) => r.context)).toEqual(["solo"]);
  });
});
