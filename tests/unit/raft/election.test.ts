/**
 * @module tests/unit/raft/election
 * Leader election, Raft §5.2 and §5.4.1, with the thesis' pre-vote (§9.6) and check-quorum
 * / leader lease (§4.2.3, §6.2): who may win, when terms move, and that a cut-off node
 * cannot disturb a healthy leader when it comes back.
 */
import { describe, expect, it } from "vitest";
import { createRng } from "../../../src/lib/rng.ts";
import { createRaft } from "../../../src/raft/core/ready.ts";
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";
import { E, TestCluster, fixedRng } from "./harness.ts";

describe("§5.2 leader election", () => {
  it("a single voter elects itself after the election timeout", () => {
    const c = new TestCluster([1]);
    c.tick(1, E - 1);
    expect(c.node(1).basicStatus().state).toBe("follower");
    c.tick(1, 1);
    c.stabilize();
    expect(c.node(1).basicStatus()).toMatchObject({ state: "leader", term: 2, lead: 1 });
  });

  it("the first to time out wins; the others follow it in its term", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    for (const id of [2, 3]) expect(c.node(id).basicStatus()).toMatchObject({ state: "follower", lead: 1, term: 2 });
  });

  it("a voter grants one vote per term, and persists it before answering", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    const hs = c.peer(2).storage.hardStateNow();
    expect(hs).toMatchObject({ term: 2, vote: 1 });
    // Node 3 asks 2 for a vote in the same term: refused.
    const r2 = c.node(2);
    r2.step({ type: "vote", from: 3, to: 2, term: 2, logTerm: 1, index: 99, entries: [], commit: 0, reject: false, rejectHint: 0, context: "", leaderTransfer: true });
    const rd = r2.ready();
    expect(rd.messages.find((m) => m.type === "vote-resp")?.reject).toBe(true);
    r2.advance(rd);
  });

  it("randomizes the election timeout in [E, 2E) from the injected rng", () => {
    const seen = new Set<number>();
    for (let seed = 1; seed <= 40; seed++) {
      const node = createRaft({ id: 1, electionTicks: E }, MemoryStorage.bootstrap([1]), createRng(seed));
      // Apply the bootstrap entries first (campaigning waits for them).
      node.advance(node.ready());
      let ticks = 0;
      while (node.basicStatus().state !== "leader" && ticks < 100) {
        node.tick();
        ticks++;
      }
      seen.add(ticks);
    }
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(E);
    expect(Math.max(...seen)).toBeLessThan(2 * E);
    expect(seen.size).toBeGreaterThan(1);
  });

  it("a node that is not a voter never campaigns", () => {
    const node = createRaft({ id: 9, electionTicks: E }, new MemoryStorage(), fixedRng);
    for (let i = 0; i < 10 * E; i++) node.tick();
    expect(node.basicStatus().state).toBe("follower");
    expect(node.hasReady()).toBe(false);
  });
});

describe("§5.4.1 election restriction", () => {
  it("a candidate whose log is behind is not elected", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.isolate(3);
    c.propose(1, "x"); // committed on 1 and 2, not on 3
    c.heal();
    // Node 3 campaigns without pre-vote help: 1 and 2 refuse (their logs are newer).
    c.tick(3, E);
    c.tick(2, E); // 2's lease on 1 ran out too, so only the log check can stop 3
    c.stabilize();
    c.tick(3, E);
    c.stabilize();
    expect(c.node(3).basicStatus().state).not.toBe("leader");
    const votesFor3 = c.sent.filter((m) => m.to === 3 && (m.type === "vote-resp" || m.type === "pre-vote-resp"));
    expect(votesFor3.length).toBeGreaterThan(0);
    expect(votesFor3.every((m) => m.reject)).toBe(true);
  });
});

describe("thesis §9.6 pre-vote and §6.2 check-quorum", () => {
  it("a partitioned node does not raise its term, and does not disrupt the leader on return", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.isolate(3);
    for (let i = 0; i < 10 * E; i++) {
      c.tick(3);
      c.tick(1);
      c.tick(2);
      c.stabilize();
    }
    expect(c.node(3).basicStatus().term).toBe(2); // pre-votes never succeeded: no term bump
    c.heal();
    c.tickAll(3 * E);
    expect(c.node(1).basicStatus()).toMatchObject({ state: "leader", term: 2 });
    expect(c.node(3).basicStatus()).toMatchObject({ lead: 1, term: 2 });
  });

  it("without pre-vote the returning node would force a new term (the problem pre-vote solves)", () => {
    const c = new TestCluster([1, 2, 3], { preVote: false, checkQuorum: false });
    c.elect(1);
    c.isolate(3);
    c.tick(3, 3 * E);
    c.stabilize();
    expect(c.node(3).basicStatus().term).toBeGreaterThan(2);
    c.heal();
    c.tickAll(2 * E);
    expect(c.node(1).basicStatus().term).toBeGreaterThan(2);
  });

  it("a leader that loses its quorum steps down after an election timeout", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.isolate(1);
    for (let i = 0; i < 2 * E; i++) {
      c.tick(1);
      c.stabilize();
    }
    expect(c.node(1).basicStatus().state).toBe("follower");
  });

  it("followers in the leader's lease ignore vote requests of higher terms", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    const r2 = c.node(2);
    r2.step({ type: "vote", from: 3, to: 2, term: 9, logTerm: 9, index: 99, entries: [], commit: 0, reject: false, rejectHint: 0, context: "", leaderTransfer: false });
    expect(r2.basicStatus().term).toBe(2);
    expect(r2.hasReady()).toBe(false);
  });

  it("a stale leader learns the new term from a follower's answer and steps down", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.isolate(1);
    // 2 and 3 stop hearing from 1: once their lease runs out they elect one of themselves.
    // (Both time out together: their pre-elections cross and 3, same log but higher id,
    // stands down instead of splitting the vote; 2 wins.)
    c.tick(3, E);
    c.tick(2, E);
    c.stabilize();
    expect(c.node(2).basicStatus().state).toBe("leader");
    expect(c.node(3).basicStatus()).toMatchObject({ state: "follower", lead: 2 });
    const term = c.node(2).basicStatus().term;
    expect(c.node(1).basicStatus()).toMatchObject({ state: "leader", term: 2 }); // has not noticed
    c.heal();
    c.tick(1); // its heartbeat meets the higher term, and the answer tells it
    c.stabilize();
    expect(c.node(1).basicStatus()).toMatchObject({ state: "follower", term });
    c.tick(2); // the new leader's next heartbeat
    c.stabilize();
    expect(c.node(1).basicStatus().lead).toBe(2);
  });
});

describe("campaigning when the connection to the leader drops", () => {
  it("followers that both lost the leader elect a new one without waiting for a timeout", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.down.add(1);
    expect(c.node(2).leaderUnreachable(1)).toBe(true);
    expect(c.node(2).campaignNow()).toBe(true);
    c.stabilize();
    // 3 has not noticed yet: its lease still holds, so 2's pre-vote goes unanswered.
    expect(c.node(2).basicStatus()).toMatchObject({ state: "pre-candidate", term: 2, lead: 0 });
    expect(c.node(3).basicStatus()).toMatchObject({ state: "follower", term: 2, lead: 1 });
    // Once 3 noticed too, it grants the next candidate's votes at once (no timeout).
    expect(c.node(3).leaderUnreachable(1)).toBe(true);
    expect(c.node(3).campaignNow()).toBe(true);
    c.stabilize();
    expect(c.node(3).basicStatus()).toMatchObject({ state: "leader", term: 3 });
    expect(c.node(2).basicStatus()).toMatchObject({ state: "follower", term: 3, lead: 3 });
  });

  it("a follower that forgot its leader votes for the first candidate at once", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.down.add(1);
    c.node(3).leaderUnreachable(1);
    c.node(2).leaderUnreachable(1);
    expect(c.node(2).campaignNow()).toBe(true);
    c.stabilize();
    expect(c.node(2).basicStatus()).toMatchObject({ state: "leader", term: 3 });
    // 3 now follows 2: a late campaignNow does nothing.
    expect(c.node(3).campaignNow()).toBe(false);
  });

  it("is ignored for anyone but the current leader, and by the leader itself", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    expect(c.node(2).leaderUnreachable(3)).toBe(false);
    expect(c.node(1).leaderUnreachable(2)).toBe(false);
    expect(c.node(2).campaignNow()).toBe(false);
    expect(c.node(1).campaignNow()).toBe(false);
    expect(c.node(2).basicStatus()).toMatchObject({ state: "follower", lead: 1 });
  });

  it("one follower's broken link does not depose a healthy leader", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    expect(c.node(2).leaderUnreachable(1)).toBe(true);
    expect(c.node(2).campaignNow()).toBe(true);
    c.stabilize();
    c.tickAll(3);
    expect(c.node(1).basicStatus()).toMatchObject({ state: "leader", term: 2 });
    for (const id of [2, 3]) expect(c.node(id).basicStatus()).toMatchObject({ state: "follower", term: 2, lead: 1 });
  });
});
