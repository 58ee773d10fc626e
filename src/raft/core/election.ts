/**
 * @module raft/core/election
 * Leader election (§5.2, §5.4.1) with pre-vote (thesis §9.6): a replica first asks whether
 * it could win without bumping its term, so a node cut off and rejoining cannot force a
 * healthy leader out. Voters grant at most one vote per term and only to up-to-date logs.
 */
import { bcastAppend } from "./replicate.ts";
import { type RaftState, becomeCandidate, becomeFollower, becomeLeader, becomePreCandidate, newMessage, promotable, send } from "./state.ts";
import type { Message, MessageType } from "./types.ts";

export type CampaignType = "pre-election" | "election" | "transfer";

/** Is there a committed-but-unapplied conf change? Campaigning on a stale config is unsafe. */
function hasUnappliedConfChange(r: RaftState): boolean {
  const lo = Math.max(r.log.applied + 1, r.log.firstIndex());
  const hi = r.log.committed + 1;
  if (lo >= hi || r.log.hasPendingSnapshot()) return false;
  const got = r.log.slice(lo, hi, Number.POSITIVE_INFINITY);
  return got.ok && got.value.some((e) => e.type === "conf-change" && e.index > r.confIndex);
}

/** The election timer fired (or a transfer asked us to): campaign if we may. */
export function hup(r: RaftState, type: CampaignType): void {
  if (r.state === "leader") return;
  if (!promotable(r)) return;
  if (hasUnappliedConfChange(r)) return;
  campaign(r, type);
}

export function campaign(r: RaftState, type: CampaignType): void {
  let voteType: MessageType;
  let term: number;
  if (type === "pre-election") {
    becomePreCandidate(r);
    voteType = "pre-vote";
    term = r.term + 1; // the term we would use; nobody (us included) adopts it yet
  } else {
    becomeCandidate(r);
    voteType = "vote";
    term = r.term;
  }
  // Our own vote first: a single-voter cluster wins on the spot.
  if (poll(r, r.id, true) === "won") {
    if (type === "pre-election") campaign(r, "election");
    else {
      becomeLeader(r);
      bcastAppend(r);
    }
    return;
  }
  for (const id of r.tracker.voters) {
    if (id === r.id) continue;
    const m = newMessage(voteType, id, term);
    m.index = r.log.lastIndex();
    m.logTerm = r.log.lastTerm();
    m.leaderTransfer = type === "transfer";
    send(r, m);
  }
}

export function poll(r: RaftState, from: number, granted: boolean): "won" | "lost" | "pending" {
  r.tracker.recordVote(from, granted);
  return r.tracker.tally();
}

/**
 * Answer a (pre-)vote request whose term is >= ours (the caller already adopted a higher
 * real-vote term). Grant when we have not voted for someone else this term and the
 * candidate's log is at least as up to date as ours.
 */
/** Does the requester's claim beat ours: a more up-to-date log, or the same log and a lower id? */
function outranks(r: RaftState, m: Message): boolean {
  const lastTerm = r.log.lastTerm();
  const lastIndex = r.log.lastIndex();
  if (m.logTerm !== lastTerm) return m.logTerm > lastTerm;
  if (m.index !== lastIndex) return m.index > lastIndex;
  return m.from < r.id;
}

export function handleVoteRequest(r: RaftState, m: Message): void {
  const respType: MessageType = m.type === "vote" ? "vote-resp" : "pre-vote-resp";
  const canVote =
    r.vote === m.from ||
    (r.vote === 0 && r.lead === 0) ||
    // A pre-vote for a future term: we would adopt that term first, so our vote is free.
    (m.type === "pre-vote" && m.term > r.term);
  if (canVote && r.log.isUpToDate(m.index, m.logTerm)) {
    // Answer at the request's term so a pre-candidate counts it for its future term.
    send(r, newMessage(respType, m.from, m.term));
    if (m.type === "vote") {
      r.electionElapsed = 0;
      r.vote = m.from;
    } else if (r.state === "pre-candidate" && outranks(r, m)) {
      // Two pre-elections crossing would both win and split the real vote: the one with the
      // weaker claim (older log, or same log and higher id) stands down and waits a full
      // timeout; the other wins with its vote. Only liveness is at stake here, never safety.
      becomeFollower(r, r.term, 0);
    }
    return;
  }
  const reject = newMessage(respType, m.from, r.term);
  reject.reject = true;
  send(r, reject);
}
