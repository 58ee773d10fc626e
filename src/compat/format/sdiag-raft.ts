/**
 * @module format/sdiag-raft
 * The Raft section that `sdiag` appends for replicated controllers (Slurm has none; the
 * layout is Spur's, documented in docs/ha.md): a heading, one summary line, then a table
 * with one row per controller: its id, Raft role, term, commit and applied index, the
 * leader's count of entries it still lacks (LAG), its membership (voter / learner /
 * removed) and address. An unreachable controller is a row of "-" marked DOWN.
 */
import type { ControllerPing } from "./scontrol-ping-raft.ts";

const pad = (cells: string[], widths: number[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ").trimEnd();

export function formatRaftDiag(pings: ControllerPing[]): string {
  const leader = pings.find((p) => p.ping?.raft?.role === "leader")?.ping?.raft;
  const peerOf = new Map((leader?.peers ?? []).map((p) => [p.id, p]));
  const header = ["ID", "ROLE", "TERM", "COMMIT", "APPLIED", "LAG", "MEMBER", "ADDRESS"];
  const rows: string[][] = pings.map((p, i) => {
    const address = p.url.replace(/^https?:\/\//, "");
    const r = p.ping?.raft;
    if (r === undefined) return [String(i + 1), "-", "-", "-", "-", "-", "DOWN", address];
    const peer = peerOf.get(r.id);
    const lag = r.role === "leader" ? "0" : peer === undefined ? "-" : String(peer.lag);
    const member = leader === undefined ? "unknown" : peer === undefined ? "removed" : peer.learner === true ? "learner" : "voter";
    return [String(r.id), r.role, String(r.term), String(r.commitIndex), String(r.appliedIndex), lag, member, address];
  });
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? "").length)));
  const up = pings.filter((p) => p.ping?.raft !== undefined).length;
  const voters = leader === undefined ? undefined : (leader.peers ?? []).filter((p) => p.learner !== true).length;
  const summary =
    leader === undefined
      ? `\tLeader: none (${up} of ${pings.length} controllers reachable)`
      : `\tLeader: ${leader.id}, term ${leader.term}, commit index ${leader.commitIndex}, ${voters} voters, ${up} of ${pings.length} controllers reachable`;
  const lines = ["Raft replication (Spur controllers):", summary, `\t${pad(header, widths)}`, ...rows.map((r) => `\t${pad(r, widths)}`), ""];
  return `${lines.join("\n")}\n`;
}
