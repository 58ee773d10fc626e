/**
 * @module format/scontrol-ping-raft
 * `scontrol ping` for replicated controllers: Slurm's line per controller (the Raft
 * leader is the "primary", the others "backup"), each followed by an indented line with
 * its Raft view (role, term, commit and applied index, and the leader's count of entries
 * that replica still lacks; "learner" for a replica being added, "removed" for one no longer a member).
 */
import type { PingResponse } from "../../net/gen/spur/v1/controller_pb.ts";
import type { Plain } from "../../lib/plain.ts";
import { pingLine } from "./scontrol-show-config.ts";

export interface ControllerPing {
  url: string;
  ping?: Plain<PingResponse>;
}

/** Lines for every controller, and whether a serving leader answered. */
export function formatRaftPing(pings: ControllerPing[]): { text: string; leaderUp: boolean } {
  const leader = pings.find((p) => p.ping?.raft?.role === "leader")?.ping?.raft;
  const lagOf = new Map((leader?.peers ?? []).map((p) => [p.id, p.lag]));
  const learnerOf = new Map((leader?.peers ?? []).map((p) => [p.id, p.learner]));
  let text = "";
  for (const p of pings) {
    const r = p.ping?.raft;
    if (p.ping === undefined || r === undefined) {
      text += pingLine(p.url.replace(/^https?:\/\//, ""), false, false);
      continue;
    }
    text += pingLine(p.ping.controller, r.role === "leader", true);
    const lag = r.role === "leader" ? 0 : lagOf.get(r.id);
    // Voters are the usual case; a replica being added (learner) or no longer a member says so.
    const member = leader === undefined ? "" : learnerOf.get(r.id) === true ? " learner" : learnerOf.has(r.id) ? "" : " removed";
    text += `  Raft id=${r.id} role=${r.role} term=${r.term} commit=${r.commitIndex} applied=${r.appliedIndex} leader=${r.leaderId || "none"}${lag === undefined ? "" : ` lag=${lag}`}${member}\n`;
  }
  return { text, leaderUp: leader !== undefined };
}
