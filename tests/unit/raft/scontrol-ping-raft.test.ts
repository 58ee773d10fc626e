/**
 * @module tests/unit/raft/scontrol-ping-raft
 * `scontrol ping` with replicated controllers: Slurm's primary/backup lines plus each
 * replica's Raft view; an unreachable one is DOWN; no leader means a failing exit.
 */
import { describe, expect, it } from "vitest";
import { formatRaftPing } from "../../../src/compat/format/scontrol-ping-raft.ts";

const ping = (controller: string, raft: Record<string, unknown>) =>
  ({ controller, primary: raft.role === "leader", now: 0, version: "0.1.0", pid: 1, started: 0, raft }) as never;

describe("scontrol ping (replicated)", () => {
  it("names the leader primary, shows term/commit/applied and each follower's lag", () => {
    const { text, leaderUp } = formatRaftPing([
      { url: "http://h1:1", ping: ping("h1", { id: 1, role: "leader", term: 4, commitIndex: 90, appliedIndex: 90, leaderId: 1, leaderUrl: "", peers: [{ id: 1, url: "", matchIndex: 90, lag: 0, active: true }, { id: 2, url: "", matchIndex: 87, lag: 3, active: true }] }) },
      { url: "http://h2:1", ping: ping("h2", { id: 2, role: "follower", term: 4, commitIndex: 87, appliedIndex: 86, leaderId: 1, leaderUrl: "http://h1:1", peers: [] }) },
      { url: "http://h3:1" },
    ]);
    expect(text).toBe(
      "Slurmctld(primary) at h1 is UP\n  Raft id=1 role=leader term=4 commit=90 applied=90 leader=1 lag=0\n" +
        "Slurmctld(backup) at h2 is UP\n  Raft id=2 role=follower term=4 commit=87 applied=86 leader=1 lag=3\n" +
        "Slurmctld(backup) at h3:1 is DOWN\n",
    );
    expect(leaderUp).toBe(true);
  });

  it("marks a replica being added (learner) and one no longer a member", () => {
    const leaderPeers = [{ id: 1, url: "", matchIndex: 9, lag: 0, active: true }, { id: 4, url: "", matchIndex: 5, lag: 4, active: true, learner: true }];
    const { text } = formatRaftPing([
      { url: "http://h1:1", ping: ping("h1", { id: 1, role: "leader", term: 2, commitIndex: 9, appliedIndex: 9, leaderId: 1, leaderUrl: "", peers: leaderPeers }) },
      { url: "http://h4:1", ping: ping("h4", { id: 4, role: "follower", term: 2, commitIndex: 5, appliedIndex: 5, leaderId: 1, leaderUrl: "", peers: [] }) },
      { url: "http://h3:1", ping: ping("h3", { id: 3, role: "follower", term: 1, commitIndex: 3, appliedIndex: 3, leaderId: 0, leaderUrl: "", peers: [] }) },
    ]);
    expect(text).toContain("  Raft id=1 role=leader term=2 commit=9 applied=9 leader=1 lag=0\n");
    expect(text).toContain("  Raft id=4 role=follower term=2 commit=5 applied=5 leader=1 lag=4 learner\n");
    expect(text).toContain("  Raft id=3 role=follower term=1 commit=3 applied=3 leader=none removed\n");
  });

  it("fails when no replica leads", () => {
    const r = formatRaftPing([{ url: "http://h1:1", ping: ping("h1", { id: 1, role: "pre-candidate", term: 4, commitIndex: 9, appliedIndex: 9, leaderId: 0, leaderUrl: "", peers: [] }) }, { url: "http://h2:1" }]);
    expect(r.leaderUp).toBe(false);
    expect(r.text).toContain("leader=none");
  });
});
