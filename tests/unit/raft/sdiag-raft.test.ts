/**
 * @module tests/unit/raft/sdiag-raft
 * sdiag's Raft section: one row per controller with role, term, commit/applied, lag and
 * membership; an unreachable controller is DOWN; no leader is said plainly.
 */
import { describe, expect, it } from "vitest";
import { formatRaftDiag } from "../../../src/compat/format/sdiag-raft.ts";

const ping = (controller: string, raft: Record<string, unknown>) => ({ controller, primary: raft.role === "leader", now: 0, version: "0.1.0", pid: 1, started: 0, raft }) as never;

describe("sdiag Raft section", () => {
  it("shows every controller's role, term, indexes, lag and membership", () => {
    const peers = [
      { id: 1, url: "", matchIndex: 90, lag: 0, active: true },
      { id: 2, url: "", matchIndex: 87, lag: 3, active: true },
      { id: 3, url: "", matchIndex: 0, lag: 90, active: false },
      { id: 4, url: "", matchIndex: 50, lag: 40, active: true, learner: true },
    ];
    const text = formatRaftDiag([
      { url: "http://h1:6817", ping: ping("h1", { id: 1, role: "leader", term: 4, commitIndex: 90, appliedIndex: 90, leaderId: 1, leaderUrl: "", peers }) },
      { url: "http://h2:6817", ping: ping("h2", { id: 2, role: "follower", term: 4, commitIndex: 87, appliedIndex: 86, leaderId: 1, leaderUrl: "http://h1:6817", peers: [] }) },
      { url: "http://h3:6817" },
      { url: "http://h4:6817", ping: ping("h4", { id: 4, role: "follower", term: 4, commitIndex: 50, appliedIndex: 50, leaderId: 1, leaderUrl: "", peers: [] }) },
    ]);
    expect(text).toBe(
      [
        "Raft replication (Spur controllers):",
        "\tLeader: 1, term 4, commit index 90, 3 voters, 3 of 4 controllers reachable",
        "\tID  ROLE      TERM  COMMIT  APPLIED  LAG  MEMBER   ADDRESS",
        "\t1   leader    4     90      90       0    voter    h1:6817",
        "\t2   follower  4     87      86       3    voter    h2:6817",
        "\t3   -         -     -       -        -    DOWN     h3:6817",
        "\t4   follower  4     50      50       40   learner  h4:6817",
        "",
        "",
      ].join("\n"),
    );
  });

  it("says when no controller leads", () => {
    const text = formatRaftDiag([{ url: "http://h1:1", ping: ping("h1", { id: 1, role: "pre-candidate", term: 4, commitIndex: 9, appliedIndex: 9, leaderId: 0, leaderUrl: "", peers: [] }) }, { url: "http://h2:1" }]);
    expect(text).toContain("\tLeader: none (1 of 2 controllers reachable)\n");
    expect(text).toContain("\t1   pre-candidate  4     9       9        -    unknown  h1:1\n");
  });
});
