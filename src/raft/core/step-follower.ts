/**
 * @module raft/core/step-follower
 * A follower's reactions: adopt the leader's entries (§5.3) and reject with a hint that lets
 * the leader skip a whole conflicting term, follow its commit index, assemble InstallSnapshot
 * chunks (§7) and restore from them, and forward client work to the leader.
 */
import { assert } from "../../lib/assert.ts";
import { hup } from "./election.ts";
import { type RaftState, becomeFollower, newMessage, send } from "./state.ts";
import type { Message, Snapshot, SnapshotChunk } from "./types.ts";

export function stepFollower(r: RaftState, m: Message): boolean {
  switch (m.type) {
    case "prop":
    case "transfer-leader":
    case "read-index":
      if (r.lead === 0) return false; // nobody to forward to: the caller retries
      send(r, { ...m, to: r.lead });
      return true;
    case "app":
      r.electionElapsed = 0;
      r.lead = m.from;
      handleAppendEntries(r, m);
      return true;
    case "heartbeat":
      r.electionElapsed = 0;
      r.lead = m.from;
      handleHeartbeat(r, m);
      return true;
    case "snap":
      r.electionElapsed = 0;
      r.lead = m.from;
      handleSnapshotChunk(r, m);
      return true;
    case "timeout-now":
      // The leader chose us: campaign now, without pre-vote and past the voters' lease.
      hup(r, "transfer");
      return true;
    case "read-index-resp":
      r.readStates.push({ index: m.index, context: m.context });
      return true;
    default:
      return true;
  }
}

export function handleAppendEntries(r: RaftState, m: Message): void {
  const resp = newMessage("app-resp", m.from, 0);
  if (m.index < r.log.committed) {
    // Everything up to our commit index matches the leader's log already (§5.3).
    resp.index = r.log.committed;
    send(r, resp);
    return;
  }
  const lastNew = r.log.maybeAppend(m.index, m.logTerm, m.commit, m.entries);
  if (lastNew !== undefined) {
    resp.index = lastNew;
    send(r, resp);
    return;
  }
  // Mismatch at m.index: hint the largest (index, term) with index <= m.index and
  // term <= m.logTerm; entries after it cannot match, so the leader may skip them all.
  const hint = r.log.findConflictByTerm(Math.min(m.index, r.log.lastIndex()), m.logTerm);
  resp.index = m.index;
  resp.reject = true;
  resp.rejectHint = hint.index;
  resp.logTerm = hint.term;
  send(r, resp);
}

export function handleHeartbeat(r: RaftState, m: Message): void {
  // The leader sends min(our match, its commit), so this is always within our log.
  r.log.commitTo(m.commit);
  const resp = newMessage("heartbeat-resp", m.from, 0);
  resp.context = m.context;
  send(r, resp);
}

const sameMeta = (a: SnapshotChunk["meta"], b: SnapshotChunk["meta"]): boolean => a.index === b.index && a.term === b.term;

/** Collect chunks in order; on the last one restore; otherwise ask for the next offset. */
export function handleSnapshotChunk(r: RaftState, m: Message): void {
  const chunk = m.chunk;
  assert(chunk !== undefined, "snap carries a chunk");
  if (chunk.meta.index <= r.log.committed) {
    // We already hold all of it (perhaps our final answer was lost): end the transfer.
    r.snapshotInbox = undefined;
    const done = newMessage("app-resp", m.from, 0);
    done.index = r.log.committed;
    send(r, done);
    return;
  }
  let inbox = r.snapshotInbox;
  if (chunk.offset === 0 && (inbox === undefined || !sameMeta(inbox.meta, chunk.meta) || inbox.from !== m.from)) {
    inbox = { meta: chunk.meta, from: m.from, parts: [], receivedBytes: 0, totalBytes: chunk.totalBytes };
    r.snapshotInbox = inbox;
  }
  if (inbox !== undefined && sameMeta(inbox.meta, chunk.meta) && chunk.offset === inbox.receivedBytes) {
    inbox.parts.push(chunk.data);
    inbox.receivedBytes += chunk.data.byteLength;
    assert(inbox.receivedBytes <= inbox.totalBytes, "snapshot chunks overrun the total");
    if (inbox.receivedBytes === inbox.totalBytes) {
      r.snapshotInbox = undefined;
      handleSnapshot(r, m, { meta: inbox.meta, data: concat(inbox.parts, inbox.totalBytes) });
      return;
    }
  }
  // Ask for what we need next: the following chunk, or a restart after a lost buffer.
  const next = inbox !== undefined && sameMeta(inbox.meta, chunk.meta) ? inbox.receivedBytes : 0;
  const resp = newMessage("snap-resp", m.from, 0);
  resp.chunk = { meta: chunk.meta, offset: next, totalBytes: chunk.totalBytes, data: new Uint8Array(0) };
  send(r, resp);
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

function handleSnapshot(r: RaftState, m: Message, snapshot: Snapshot): void {
  const resp = newMessage("app-resp", m.from, 0);
  resp.index = restore(r, snapshot) ? r.log.lastIndex() : r.log.committed;
  send(r, resp);
}

/** Adopt a snapshot unless we already have what it holds. Returns whether the log was replaced. */
export function restore(r: RaftState, snapshot: Snapshot): boolean {
  const { index, term, confState } = snapshot.meta;
  if (index <= r.log.committed) return false;
  if (r.state !== "follower") becomeFollower(r, r.term + 1, 0); // defensive, as etcd
  if (r.log.matchTerm(index, term)) {
    // Our log already holds the snapshot's last entry: fast-forward commit, keep the tail.
    r.log.commitTo(index);
    return false;
  }
  r.log.restore(snapshot);
  // The snapshot's membership replaces ours; progress restarts from the new last index.
  r.tracker.applyConfState(confState, r.log.lastIndex() + 1);
  r.confIndex = index;
  return true;
}
