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

  it("fails when no replica leads", () => {
    const r = formatRaftPing([{ url: "http://h1:1", ping: ping("h1", { id: 1, role: "pre-candidate", term: 4, commitIndex: 9, appliedIndex: 9, leaderId: 0, leaderUrl: "", peers: [] }) }, { url: "http://h2:1" }]);
    expect(r.leaderUp).toBe(false);
    expect(r.text).toContain("leader=none");
  });
});
