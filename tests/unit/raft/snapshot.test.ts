/**
 * @module tests/unit/raft/snapshot
 * Log compaction and InstallSnapshot, Raft §7: a follower that needs compacted entries gets
 * the snapshot in chunks of snapshotChunkBytes, lost chunks are resent on the heartbeat,
 * a follower that restarts mid-transfer gets it again from the start, then replication resumes.
 */
import { describe, expect, it } from "vitest";
import { E, TestCluster } from "./harness.ts";

const CHUNK = 100;

/** Leader 1 with 20 entries applied, compacted behind a 1000-byte snapshot; 3 missed it all. */
function laggingFollower(): TestCluster {
  const c = new TestCluster([1, 2, 3], { snapshotChunkBytes: CHUNK });
  c.elect(1);
  c.isolate(3);
  for (let i = 0; i < 20; i++) c.propose(1, `e${i}`);
  const st = c.node(1).status();
  const storage = c.peer(1).storage;
  storage.createSnapshot(st.applied, st.confState, new Uint8Array(1000).fill(7));
  storage.compact(st.applied);
  expect(c.node(1).status().firstIndex).toBe(st.applied + 1);
  return c;
}

describe("§7 log compaction and InstallSnapshot", () => {
  it("streams the snapshot in chunks, then replicates normally", () => {
    const c = laggingFollower();
    c.heal();
    const before = c.sent.length;
    c.tickAll(2);
    const chunks = c.sent.slice(before).filter((m) => m.type === "snap");
    expect(chunks).toHaveLength(1000 / CHUNK);
    expect(chunks.map((m) => m.chunk?.offset)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
    expect(c.peer(3).snapshotsApplied).toBe(1);
    expect(c.peer(3).storage.snapshot().data).toEqual(new Uint8Array(1000).fill(7));
    c.propose(1, "after");
    expect(c.appliedTexts(3)).toEqual(["after"]);
    expect(c.node(3).basicStatus().commit).toBe(c.node(1).basicStatus().commit);
  });

  it("resends a lost chunk when the follower answers the next heartbeat", () => {
    const c = laggingFollower();
    c.heal();
    let snaps = 0;
    c.allow = (m) => !(m.type === "snap" && ++snaps === 3); // lose the third chunk once
    c.tickAll(1);
    expect(c.peer(3).snapshotsApplied).toBe(0);
    c.tickAll(2);
    expect(c.peer(3).snapshotsApplied).toBe(1);
  });

  it("starts over when the follower restarts in the middle of a transfer", () => {
    const c = laggingFollower();
    c.heal();
    let snaps = 0;
    c.allow = (m) => !(m.type === "snap" && ++snaps === 5); // stall after four chunks
    c.tickAll(1);
    c.restart(3); // the partial buffer was only in memory
    c.heal();
    c.tickAll(3);
    expect(c.peer(3).snapshotsApplied).toBe(1);
    const offsets = c.sent.filter((m) => m.type === "snap").map((m) => m.chunk?.offset);
    expect(offsets.filter((o) => o === 0).length).toBeGreaterThanOrEqual(2);
  });

  it("a restarted replica resumes from its snapshot, not from the beginning", () => {
    const c = laggingFollower();
    const applied = c.node(1).basicStatus().applied;
    c.restart(1);
    expect(c.node(1).basicStatus()).toMatchObject({ applied, commit: applied });
    expect(c.node(1).hasReady()).toBe(false); // nothing to re-apply: the snapshot covers it
    c.tickAll(2 * E);
  });
});
