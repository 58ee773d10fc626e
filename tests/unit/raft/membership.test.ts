/**
 * @module tests/unit/raft/membership
 * Membership changes one server at a time (Raft §6, thesis §4.1-4.2): a server joins as a
 * learner that replicates but never votes, is promoted only after catching up, changes are
 * serialised, and a removed leader steps down so the rest elect a new one.
 */
import { describe, expect, it } from "vitest";
import { E, TestCluster, entries, storageWith } from "./harness.ts";

function withLearner4(): TestCluster {
  const c = new TestCluster([1, 2, 3]);
  c.elect(1);
  c.propose(1, "before");
  c.add(4);
  expect(c.node(1).proposeConfChange({ type: "add-learner", nodeId: 4 }).ok).toBe(true);
  c.stabilize();
  c.tickAll(2);
  return c;
}

describe("§6 / thesis §4 membership changes", () => {
  it("a learner receives the log (and the initial membership from it) but never votes or campaigns", () => {
    const c = withLearner4();
    expect(c.appliedTexts(4)).toEqual(["before"]);
    expect(c.node(4).status().confState).toEqual({ voters: [1, 2, 3], learners: [4] });
    c.tick(4, 10 * E);
    c.stabilize();
    expect(c.node(4).basicStatus().state).toBe("follower");
    expect(c.sent.some((m) => m.from === 4 && (m.type === "vote" || m.type === "pre-vote"))).toBe(false);
  });

  it("promotes a learner only once it has caught up", () => {
    const c = withLearner4();
    c.isolate(4);
    c.propose(1, "while-away");
    const refused = c.node(1).proposeConfChange({ type: "add-node", nodeId: 4 });
    expect(refused.ok ? "" : refused.error.code).toBe("LearnerBehind");
    c.heal();
    c.tickAll(2);
    expect(c.node(1).proposeConfChange({ type: "add-node", nodeId: 4 }).ok).toBe(true);
    c.stabilize();
    expect(c.node(1).status().confState).toEqual({ voters: [1, 2, 3, 4], learners: [] });
    expect(c.node(4).status().confState.voters).toContain(4);
  });

  it("refuses a voter that did not join as a learner, and a second change while one is pending", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    const direct = c.node(1).proposeConfChange({ type: "add-node", nodeId: 9 });
    expect(direct.ok ? "" : direct.error.code).toBe("BadConfChange");
    expect(c.node(1).proposeConfChange({ type: "add-learner", nodeId: 4 }).ok).toBe(true);
    const second = c.node(1).proposeConfChange({ type: "add-learner", nodeId: 5 });
    expect(second.ok ? "" : second.error.code).toBe("ConfChangePending");
    c.stabilize();
    expect(c.node(1).proposeConfChange({ type: "add-learner", nodeId: 5 }).ok).toBe(true);
    const notLeader = c.node(2).proposeConfChange({ type: "remove-node", nodeId: 5 });
    expect(notLeader.ok ? "" : notLeader.error.code).toBe("NotLeader");
  });

  it("a new leader proposes no change until the entries it inherited are applied", () => {
    // Node 1 holds an uncommitted entry of term 2 from an earlier leadership.
    const storages = new Map([[1, storageWith([1, 2, 3], entries(4, 4, 2), 2)]]);
    const c = new TestCluster([1, 2, 3], {}, storages);
    c.allow = (m) => m.type.includes("vote");
    c.elect(1);
    const early = c.node(1).proposeConfChange({ type: "add-learner", nodeId: 4 });
    expect(early.ok ? "" : early.error.code).toBe("ConfChangePending");
  });

  it("a removed leader steps down and the remaining voters elect a new one", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    expect(c.node(1).proposeConfChange({ type: "remove-node", nodeId: 1 }).ok).toBe(true);
    c.stabilize();
    expect(c.node(1).basicStatus().state).toBe("follower");
    expect(c.node(2).status().confState.voters).toEqual([2, 3]);
    c.tickAll(E); // 2 and 3 time out together (fixed timeouts): a split vote
    c.tick(2, E); // then 2 alone
    c.stabilize();
    const leaders = [2, 3].filter((id) => c.node(id).basicStatus().state === "leader");
    expect(leaders).toHaveLength(1);
    c.propose(leaders[0] as number, "two-voter cluster");
    expect(c.appliedTexts(2)).toEqual(["two-voter cluster"]);
  });
});
