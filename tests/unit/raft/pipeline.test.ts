/**
 * @module tests/unit/raft/pipeline
 * Group commit and the leader's parallel write (thesis §10.2.1): a batch of proposals is one
 * append per follower; the leader's appends may leave before its own write
 * (Ready.messagesBeforePersist) and its own copy counts toward a quorum only once advance()
 * reports it persisted; a crash between sending and writing loses nothing acknowledged.
 */
import { describe, expect, it } from "vitest";
import { TestCluster, text } from "./harness.ts";

const enc = new TextEncoder();

describe("group commit and the leader's parallel write", () => {
  it("proposeMany makes consecutive entries of one append to each follower, applied in order", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    const before = c.sent.length;
    expect(c.node(1).proposeMany(["a", "b", "c", "d"].map((x) => enc.encode(x))).ok).toBe(true);
    c.stabilize();
    const apps = c.sent.slice(before).filter((m) => m.type === "app" && m.entries.length > 0);
    expect(apps.map((m) => [m.to, m.entries.length])).toEqual([[2, 4], [3, 4]]);
    for (const id of [1, 2, 3]) expect(c.appliedTexts(id)).toEqual(["a", "b", "c", "d"]);
  });

  it("a leader's appends leave before its write, and its own copy counts only once persisted", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    const leader = c.node(1);
    leader.propose("x");
    const rd = leader.ready();
    const index = (rd.entries[0]?.index ?? 0);
    expect(rd.entries.map(text)).toEqual(["x"]);
    expect(rd.messagesBeforePersist.filter((m) => m.type === "app").map((m) => m.to)).toEqual([2, 3]);
    expect(rd.messages.filter((m) => m.type === "app")).toEqual([]);
    // Follower 2 writes and acknowledges while the leader has not written yet.
    const toTwo = rd.messagesBeforePersist.find((m) => m.to === 2);
    if (toTwo === undefined) throw new Error("no append to 2");
    c.node(2).step(toTwo);
    c.process(2);
    const ack = c.queue.find((m) => m.type === "app-resp" && m.from === 2);
    if (ack === undefined) throw new Error("no ack from 2");
    c.queue = [];
    leader.step(ack);
    // One durable copy (follower 2) is not a majority of three: not committed yet.
    expect(leader.basicStatus().commit).toBeLessThan(index);
    c.peer(1).storage.append(rd.entries);
    leader.advance(rd);
    expect(leader.basicStatus().commit).toBe(index);
  });

  it("a leader that crashes between sending its appends and writing them loses nothing acknowledged", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.propose(1, "acked");
    const leader = c.node(1);
    leader.propose("in-flight");
    const rd = leader.ready();
    for (const m of rd.messagesBeforePersist) c.queue.push(m);
    c.restart(1); // power lost before the write: "in-flight" is gone from 1's disk
    expect(c.peer(1).storage.lastIndex()).toBeLessThan(rd.entries[0]?.index ?? 0);
    c.stabilize();
    c.elect(2);
    c.propose(2, "after");
    for (const id of [1, 2, 3]) {
      const got = c.appliedTexts(id);
      expect(got).toContain("acked");
      expect(got[got.length - 1]).toBe("after");
    }
  });

  it("a follower's answers and a new term's votes never leave before the write", () => {
    const c = new TestCluster([1, 2, 3]);
    c.elect(1);
    c.node(1).propose("y");
    const rd1 = c.node(1).ready();
    const toTwo = rd1.messagesBeforePersist.find((m) => m.to === 2);
    if (toTwo === undefined) throw new Error("no append to 2");
    c.peer(1).storage.append(rd1.entries);
    c.node(1).advance(rd1);
    c.node(2).step(toTwo);
    const rd2 = c.node(2).ready();
    expect(rd2.messagesBeforePersist).toEqual([]);
    expect(rd2.messages.some((m) => m.type === "app-resp")).toBe(true);
  });
});
