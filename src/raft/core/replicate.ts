/**
 * @module raft/core/replicate
 * The leader's outgoing side: appends within the per-follower flow-control window, chunked
 * InstallSnapshot when a follower needs entries we compacted, heartbeats (which also confirm
 * ReadIndex requests), commit advancement, and the TimeoutNow of a leadership transfer.
 */
import { assert } from "../../lib/assert.ts";
import type { Progress } from "./progress.ts";
import { type RaftState, newMessage, send } from "./state.ts";
import { type Entry, type LogIndex, type Message, NONE, type NodeId } from "./types.ts";

/** Every member id in a fixed order (voters then learners, each sorted). */
export function members(r: RaftState): NodeId[] {
  return r.tracker.voters.concat(r.tracker.learners);
}

export function sendAppend(r: RaftState, to: NodeId): void {
  maybeSendAppend(r, to, true);
}

/**
 * Send `to` the entries from its next index, or a snapshot if we no longer have them.
 * Returns whether anything was sent; `sendIfEmpty` also sends an empty append (a probe, or
 * a way to carry the commit index).
 */
export function maybeSendAppend(r: RaftState, to: NodeId, sendIfEmpty: boolean): boolean {
  const pr = r.tracker.progress.get(to);
  if (pr === undefined || to === r.id || pr.isPaused()) return false;
  const prevIndex = pr.next - 1;
  const prevTerm = r.log.term(prevIndex);
  let ents: Entry[] = [];
  let compacted = prevTerm === undefined;
  if (!compacted && (pr.state !== "replicate" || !pr.inflights.full())) {
    const got = r.log.entries(pr.next, r.config.maxSizePerMsg);
    if (got.ok) ents = got.value;
    else compacted = true;
  }
  if (compacted) return startSnapshot(r, to, pr);
  if (ents.length === 0 && !sendIfEmpty) return false;
  assert(prevTerm !== undefined, "append has a previous term");
  const m = newMessage("app", to, 0);
  m.index = prevIndex;
  m.logTerm = prevTerm;
  m.entries = ents;
  m.commit = r.log.committed;
  send(r, m);
  let bytes = 0;
  for (const e of ents) bytes += e.data.byteLength;
  pr.sentEntries(pr.next, ents.length, bytes);
  return true;
}

/** Switch `to` to snapshot state and stream the current snapshot from its first chunk. */
function startSnapshot(r: RaftState, to: NodeId, pr: Progress): boolean {
  // An unreachable follower would only make us read and hold a large snapshot for nothing.
  if (!pr.recentActive) return false;
  const snapshot = r.log.snapshot();
  assert(snapshot.meta.index >= r.log.firstIndex() - 1, "snapshot covers the compacted log");
  pr.becomeSnapshot(snapshot);
  sendSnapshotChunk(r, to, pr);
  return true;
}

/** Send the chunk starting at the follower's acknowledged offset (stop-and-wait per chunk). */
export function sendSnapshotChunk(r: RaftState, to: NodeId, pr: Progress): void {
  const snap = pr.sending;
  assert(pr.state === "snapshot" && snap !== undefined, "chunk only in snapshot state");
  const total = snap.data.byteLength;
  const offset = Math.min(pr.sendingAcked, total);
  const end = Math.min(offset + r.config.snapshotChunkBytes, total);
  const m = newMessage("snap", to, 0);
  m.chunk = { meta: snap.meta, offset, totalBytes: total, data: snap.data.subarray(offset, end) };
  send(r, m);
}

/** A follower acknowledged chunks up to `offset` (the next byte it wants). */
export function onSnapshotAck(r: RaftState, to: NodeId, pr: Progress, m: Message): void {
  const chunk = m.chunk;
  if (pr.state !== "snapshot" || pr.sending === undefined || chunk === undefined) return;
  if (chunk.meta.index !== pr.sending.meta.index || chunk.meta.term !== pr.sending.meta.term) return;
  if (chunk.offset === pr.sendingAcked) return; // duplicate answer: the chunk is already out
  // Forward: next chunk. Backward (the follower restarted and lost its buffer): resend from there.
  pr.sendingAcked = chunk.offset;
  sendSnapshotChunk(r, to, pr);
}

export function bcastAppend(r: RaftState): void {
  for (const id of members(r)) if (id !== r.id) sendAppend(r, id);
}

export function sendHeartbeat(r: RaftState, to: NodeId, context: string): void {
  const pr = r.tracker.progress.get(to);
  if (pr === undefined) return;
  const m = newMessage("heartbeat", to, 0);
  // Never tell a follower to commit past what it is known to hold.
  m.commit = Math.min(pr.match, r.log.committed);
  m.context = context;
  send(r, m);
}

export function bcastHeartbeat(r: RaftState, context: string = r.readOnly.lastPendingContext()): void {
  for (const id of members(r)) if (id !== r.id) sendHeartbeat(r, id, context);
}

/** Advance commit to the majority match if that entry is of our term (Figure 8). */
export function maybeCommit(r: RaftState): boolean {
  return r.log.maybeCommit(r.tracker.committed(), r.term);
}

/**
 * Leader: the driver persisted our log up to `index`. Only now does our own copy count
 * toward a quorum, so the appends may have left before the write (see Ready.messagesBeforePersist).
 */
export function selfPersisted(r: RaftState, index: LogIndex): void {
  if (r.state !== "leader") return;
  const self = r.tracker.progress.get(r.id);
  if (self === undefined || !self.maybeUpdate(Math.min(index, r.log.lastIndex()))) return;
  if (!maybeCommit(r)) return;
  releasePendingReadIndexMessages(r);
  bcastAppend(r);
}

export function sendTimeoutNow(r: RaftState, to: NodeId): void {
  send(r, newMessage("timeout-now", to, 0));
}

export const committedEntryInCurrentTerm = (r: RaftState): boolean => r.log.term(r.log.committed) === r.term;

/** Answer a confirmed ReadIndex request: locally as a ReadState, else to the follower. */
export function respondToReadIndex(r: RaftState, request: Message, index: LogIndex): void {
  if (request.from === NONE || request.from === r.id) {
    r.readStates.push({ index, context: request.context });
    return;
  }
  const m = newMessage("read-index-resp", request.from, 0);
  m.index = index;
  m.context = request.context;
  send(r, m);
}

/** Leader: start confirming a read at the current commit index (thesis §6.4 steps 1-3). */
export function handleReadIndexAsLeader(r: RaftState, m: Message): void {
  if (r.tracker.voters.length === 1 && r.tracker.isVoter(r.id)) {
    respondToReadIndex(r, m, r.log.committed); // alone: we are the quorum
    return;
  }
  if (!r.readOnly.addRequest(r.log.committed, m)) return;
  r.readOnly.recvAck(r.id, m.context);
  bcastHeartbeat(r, m.context);
}

/** Once our term has a committed entry, serve the reads that waited for it. */
export function releasePendingReadIndexMessages(r: RaftState): void {
  if (r.pendingReadIndexMessages.length === 0 || !committedEntryInCurrentTerm(r)) return;
  const waiting = r.pendingReadIndexMessages;
  r.pendingReadIndexMessages = [];
  for (const m of waiting) handleReadIndexAsLeader(r, m);
}
