/**
 * @module tests/unit/raft/transfer
 * Leadership transfer (thesis §3.10): the leader brings the transferee up to date, sends it
 * TimeoutNow, and the transferee campaigns at once, past the voters' leader lease. While a
 * transfer is pending proposals are refused; one that does not finish in time is abandoned.
 */
import { describe, expect, it } from "vitest";
import { E, TestCluster } from "./harness.ts";

describe("thesis §3.10 leadership transfer", () => {
  it("hands leadership to an up-to-date follower within one round", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    expect(c.node(1).transferLeader(2).ok).toBe(true);
    c.stabilize();
    expect(c.node(2).basicStatus()).toMatchObject({ state: "leader", term: 3 });
    expect(c.node(1).basicStatus()).toMatchObject({ state: "follower", lead: 2 });
    expect(c.sent.some((m) => m.type === "timeout-now" && m.to === 2)).toBe(true);
  });

  it("catches a lagging transferee up first", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.isolate(3);
    for (let i = 0; i < 5; i++) c.propose(1, `x${i}`);
    c.heal();
    c.node(1).transferLeader(3);
    c.stabilize();
    expect(c.node(3).basicStatus().state).toBe("leader");
    expect(c.node(3).status().lastIndex).toBeGreaterThanOrEqual(c.node(1).status().lastIndex);
  });

  it("refuses proposals while a transfer is pending, and gives up after an election timeout", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.isolate(3);
    c.node(1).transferLeader(3);
    c.stabilize();
    expect(c.node(1).status().leadTransferee).toBe(3);
    expect(c.node(1).propose("blocked").ok).toBe(false);
    c.heal();
    c.isolate(3);
    for (let i = 0; i < E; i++) {
      c.tick(1);
      c.stabilize();
    }
    expect(c.node(1).status().leadTransferee).toBe(0);
    expect(c.node(1).propose("ok now").ok).toBe(true);
  });

  it("a follower's request is forwarded to the leader", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.node(2).transferLeader(2);
    c.stabilize();
    expect(c.node(2).basicStatus().state).toBe("leader");
  });
});
