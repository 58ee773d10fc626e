/**
 * @module raft/core/raft
 * One replica's reaction to a tick or a message: the term rules common to every role
 * (adopt higher terms, answer stale senders, leader lease for votes), then the role's own
 * step function. Also builds the replica from Storage on start and restart.
 */
import { assert } from "../../lib/assert.ts";
import type { RaftRng, Storage } from "./ports.ts";
import { handleVoteRequest, hup } from "./election.ts";
import { RaftLog } from "./log.ts";
import { bcastHeartbeat } from "./replicate.ts";
import { type RaftState, abortLeaderTransfer, becomeFollower, newMessage, newState, pastElectionTimeout, promotable, send } from "./state.ts";
import { stepCandidate } from "./step-candidate.ts";
import { stepFollower } from "./step-follower.ts";
import { stepLeader } from "./step-leader.ts";
import { type Message, NONE, type RaftConfig } from "./types.ts";

const MiB = 1024 * 1024;

/** Defaults follow Spur's STYLE (tick 50 ms: election 150-300 ms) and etcd's limits. */
export function resolveConfig(config: Partial<RaftConfig> & { id: number }): RaftConfig {
  const c: RaftConfig = {
    id: config.id,
    electionTicks: 3,
    heartbeatTicks: 1,
    preVote: true,
    checkQuorum: true,
    maxSizePerMsg: 1 * MiB,
    maxInflightMsgs: 256,
    maxInflightBytes: 32 * MiB,
    maxCommittedSizePerReady: 8 * MiB,
    maxUncommittedEntriesSize: 64 * MiB,
    snapshotChunkBytes: 1 * MiB,
  };
  // Only keys actually given override a default (an explicit undefined does not).
  for (const [key, value] of Object.entries(config)) if (value !== undefined) (c as unknown as Record<string, unknown>)[key] = value;
  assert(c.id > 0, "raft id must be positive");
  assert(c.heartbeatTicks > 0 && c.heartbeatTicks < c.electionTicks, "need 0 < heartbeatTicks < electionTicks");
  assert(c.maxInflightMsgs > 0 && c.snapshotChunkBytes > 0, "limits must be positive");
  return c;
}

/** Build a replica from what Storage holds (a fresh node, or a restart after a crash). */
export function loadRaft(config: RaftConfig, storage: Storage, rng: RaftRng): RaftState {
  const log = new RaftLog(storage);
  const r = newState(config, log, rng);
  const { hardState, confState } = storage.initialState();
  r.tracker.applyConfState(confState, log.lastIndex() + 1);
  r.confIndex = storage.snapshot().meta.index;
  assert(hardState.commit <= log.lastIndex(), `hard state commit ${hardState.commit} beyond last index ${log.lastIndex()}`);
  // A commit index persisted without fsync may lag the snapshot; the snapshot is committed.
  log.commitTo(hardState.commit);
  r.term = hardState.term;
  r.vote = hardState.vote;
  becomeFollower(r, r.term, NONE);
  return r;
}

export function tick(r: RaftState): void {
  if (r.state === "leader") tickHeartbeat(r);
  else tickElection(r);
}

function tickElection(r: RaftState): void {
  r.electionElapsed++;
  if (promotable(r) && pastElectionTimeout(r)) {
    r.electionElapsed = 0;
    hup(r, r.config.preVote ? "pre-election" : "election");
  }
}

function tickHeartbeat(r: RaftState): void {
  r.heartbeatElapsed++;
  r.electionElapsed++;
  if (r.electionElapsed >= r.config.electionTicks) {
    r.electionElapsed = 0;
    if (r.config.checkQuorum) checkQuorum(r);
    // A transfer that did not finish within an election timeout is abandoned.
    if (r.state === "leader" && r.leadTransferee !== NONE) abortLeaderTransfer(r);
  }
  if (r.state !== "leader") return;
  if (r.heartbeatElapsed >= r.config.heartbeatTicks) {
    r.heartbeatElapsed = 0;
    bcastHeartbeat(r);
  }
}

/** A leader that has not heard from a majority for an election timeout steps down. */
function checkQuorum(r: RaftState): void {
  if (!r.tracker.quorumActive(r.id)) {
    becomeFollower(r, r.term, NONE);
    return;
  }
  for (const [id, pr] of r.tracker.progress) if (id !== r.id) pr.recentActive = false;
}

/**
 * The transport saw its connection to `id` drop (a killed process closes its sockets at
 * once). A follower whose leader that is forgets it, so its lease no longer shields the
 * leader: it will grant another replica's (pre-)vote at once instead of after an election
 * timeout. Returns whether anything changed. Safety does not depend on this; availability
 * neither: one broken link cannot depose a healthy leader, because the other voters still
 * hear from it and keep ignoring would-be candidates (their leases hold).
 */
export function leaderUnreachable(r: RaftState, id: number): boolean {
  if (r.state !== "follower" || r.lead === NONE || r.lead !== id) return false;
  r.lead = NONE;
  return true;
}

/** A follower that knows no leader campaigns now (pre-vote first) instead of at its timeout. */
export function campaignNow(r: RaftState): boolean {
  if (r.state !== "follower" || r.lead !== NONE) return false;
  hup(r, r.config.preVote ? "pre-election" : "election");
  return r.state !== "follower";
}

/**
 * Step one message. Returns false when a proposal, ReadIndex or transfer request was dropped
 * (no leader known, transfer in progress, limits); true otherwise.
 */
export function step(r: RaftState, m: Message): boolean {
  const termBefore = r.term;
  if (m.term > r.term) {
    if (m.type === "vote" || m.type === "pre-vote") {
      // Leader lease (thesis §4.2.3): while we hear from a leader, ignore would-be usurpers.
      const inLease = r.config.checkQuorum && r.lead !== NONE && r.electionElapsed < r.config.electionTicks;
      if (!m.leaderTransfer && inLease) return true;
    }
    if (m.type === "pre-vote" || (m.type === "pre-vote-resp" && !m.reject)) {
      // Pre-votes never change terms; a won pre-election bumps ours when it campaigns.
    } else if (m.type === "app" || m.type === "heartbeat" || m.type === "snap") {
      becomeFollower(r, m.term, m.from);
    } else {
      becomeFollower(r, m.term, NONE);
    }
  } else if (m.term !== 0 && m.term < r.term) {
    answerStale(r, m);
    return true;
  }
  assert(r.term >= termBefore, "term never decreases");
  if (m.type === "vote" || m.type === "pre-vote") {
    handleVoteRequest(r, m);
    return true;
  }
  if (r.state === "leader") return stepLeader(r, m);
  if (r.state === "follower") return stepFollower(r, m);
  return stepCandidate(r, m);
}

/** A message from an older term. Tell stale leaders and pre-candidates about our term. */
function answerStale(r: RaftState, m: Message): void {
  if ((r.config.checkQuorum || r.config.preVote) && (m.type === "heartbeat" || m.type === "app")) {
    // With check-quorum / pre-vote our term may have risen without an election the old
    // leader heard of; this answer makes it step down instead of waiting forever.
    send(r, newMessage("app-resp", m.from, 0));
  } else if (m.type === "pre-vote") {
    const resp = newMessage("pre-vote-resp", m.from, r.term);
    resp.reject = true;
    send(r, resp);
  }
}
