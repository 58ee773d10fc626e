/**
 * @module raft/core/step-candidate
 * A (pre-)candidate's reactions: count votes of its own kind, step down to follower when a
 * leader of its term shows up or the election is lost, and go from a won pre-election to a
 * real one (which bumps the term) or from a won election to leadership.
 */
import { campaign, poll } from "./election.ts";
import { bcastAppend } from "./replicate.ts";
import { type RaftState, becomeFollower, becomeLeader } from "./state.ts";
import { handleAppendEntries, handleHeartbeat, handleSnapshotChunk } from "./step-follower.ts";
import type { Message } from "./types.ts";

export function stepCandidate(r: RaftState, m: Message): boolean {
  const myVoteResp = r.state === "pre-candidate" ? "pre-vote-resp" : "vote-resp";
  switch (m.type) {
    case "prop":
    case "read-index":
    case "transfer-leader":
      return false; // no leader to serve or forward to
    case "app":
      becomeFollower(r, m.term, m.from); // a leader of our term exists: it won
      handleAppendEntries(r, m);
      return true;
    case "heartbeat":
      becomeFollower(r, m.term, m.from);
      handleHeartbeat(r, m);
      return true;
    case "snap":
      becomeFollower(r, m.term, m.from);
      handleSnapshotChunk(r, m);
      return true;
    case "pre-vote-resp":
    case "vote-resp":
      if (m.type !== myVoteResp) return true; // an answer to another round of ours
      onVoteResponse(r, m);
      return true;
    default:
      return true; // timeout-now while campaigning: already doing it
  }
}

function onVoteResponse(r: RaftState, m: Message): void {
  const result = poll(r, m.from, !m.reject);
  if (result === "won") {
    if (r.state === "pre-candidate") campaign(r, "election");
    else {
      becomeLeader(r);
      bcastAppend(r);
    }
  } else if (result === "lost") {
    // A rejection carries the voter's term; the caller already adopted it when higher.
    becomeFollower(r, r.term, 0);
  }
}
