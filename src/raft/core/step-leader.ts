/**
 * @module raft/core/step-leader
 * The leader's reactions: accept proposals, track followers' answers (fast back-off on
 * rejection, flow-control windows, snapshot completion), commit, confirm ReadIndex rounds
 * through heartbeat answers, and hand leadership over on request (thesis §3.10).
 */
import { voteResult } from "./quorum.ts";
import type { Progress } from "./progress.ts";
import {
  bcastAppend,
  committedEntryInCurrentTerm,
  handleReadIndexAsLeader,
  maybeCommit,
  maybeSendAppend,
  onSnapshotAck,
  releasePendingReadIndexMessages,
  respondToReadIndex,
  sendAppend,
  sendSnapshotChunk,
  sendTimeoutNow,
} from "./replicate.ts";
import { MAX_PENDING_READS, type RaftState, abortLeaderTransfer, appendEntries } from "./state.ts";
import type { Message } from "./types.ts";

export function stepLeader(r: RaftState, m: Message): boolean {
  switch (m.type) {
    case "prop":
      return propose(r, m);
    case "read-index":
      if (!committedEntryInCurrentTerm(r)) {
        // Our commit index may lag the true one until our term commits an entry (§8).
        if (r.pendingReadIndexMessages.length >= MAX_PENDING_READS) return false;
        r.pendingReadIndexMessages.push(m);
        return true;
      }
      handleReadIndexAsLeader(r, m);
      return true;
    default:
      break;
  }
  const pr = r.tracker.progress.get(m.from);
  if (pr === undefined) return true; // not a member (removed, or not yet added)
  switch (m.type) {
    case "app-resp":
      onAppendResponse(r, m, pr);
      break;
    case "heartbeat-resp":
      onHeartbeatResponse(r, m, pr);
      break;
    case "snap-resp":
      pr.recentActive = true;
      onSnapshotAck(r, m.from, pr, m);
      break;
    case "transfer-leader":
      onTransferLeader(r, m, pr);
      break;
    default:
      break;
  }
  return true;
}

function propose(r: RaftState, m: Message): boolean {
  if (!r.tracker.progress.has(r.id)) return false; // we were removed; we step down soon
  if (r.leadTransferee !== 0) return false; // hand-over in progress: proposals would be lost
  const ok = appendEntries(r, m.entries);
  if (!ok) return false;
  releasePendingReadIndexMessages(r); // a lone voter may have committed just now
  bcastAppend(r);
  return true;
}

function onAppendResponse(r: RaftState, m: Message, pr: Progress): void {
  pr.recentActive = true;
  if (m.reject) {
    // Fast back-off: with the follower's (index, term) hint, find our last entry that can
    // match it, skipping every entry of a conflicting term in one round trip.
    const probe = m.logTerm > 0 ? r.log.findConflictByTerm(m.rejectHint, m.logTerm).index : m.rejectHint;
    if (pr.maybeDecrTo(m.index, probe)) {
      if (pr.state === "replicate") pr.becomeProbe();
      sendAppend(r, m.from);
    }
    return;
  }
  if (pr.state === "snapshot") {
    // Only an answer covering the snapshot ends the transfer; older answers are stale.
    if (m.index < pr.pendingSnapshot) return;
    pr.maybeUpdate(m.index);
    pr.becomeProbe();
    if (pr.match + 1 >= r.log.firstIndex()) pr.becomeReplicate();
  } else {
    const wasPaused = pr.isPaused();
    const moved = pr.maybeUpdate(m.index);
    if (!moved && !(pr.match === m.index && pr.state === "probe")) return;
    if (pr.state === "probe") pr.becomeReplicate();
    else pr.inflights.freeLE(m.index);
    if (maybeCommit(r)) {
      releasePendingReadIndexMessages(r);
      bcastAppend(r);
    } else if (wasPaused) {
      sendAppend(r, m.from);
    }
  }
  // Fill the window.
  while (maybeSendAppend(r, m.from, false)) {
    /* keep sending while the window allows */
  }
  if (m.from === r.leadTransferee && pr.match === r.log.lastIndex()) sendTimeoutNow(r, m.from);
}

function onHeartbeatResponse(r: RaftState, m: Message, pr: Progress): void {
  pr.recentActive = true;
  pr.paused = false;
  if (pr.state === "snapshot") {
    // Heartbeats are the retransmission timer of the chunk stream (chunks may be lost).
    sendSnapshotChunk(r, m.from, pr);
  } else if (pr.match < r.log.lastIndex() || pr.state === "probe") {
    // Even with a full window, send (possibly empty): the appends that filled it may be lost.
    sendAppend(r, m.from);
  }
  if (m.context === "") return;
  const acks = r.readOnly.recvAck(m.from, m.context);
  if (acks === undefined || voteResult(r.tracker.voters, acks) !== "won") return;
  for (const released of r.readOnly.advance(m.context)) respondToReadIndex(r, released.request, released.index);
}

function onTransferLeader(r: RaftState, m: Message, pr: Progress): void {
  if (pr.isLearner) return; // a learner cannot lead
  const transferee = m.from;
  if (r.leadTransferee !== 0) {
    if (r.leadTransferee === transferee) return;
    abortLeaderTransfer(r);
  }
  if (transferee === r.id) return;
  // The transfer must finish within one election timeout, else it is abandoned.
  r.electionElapsed = 0;
  r.leadTransferee = transferee;
  if (pr.match === r.log.lastIndex()) sendTimeoutNow(r, transferee);
  else sendAppend(r, transferee);
}
