/**
 * @module raft/core/progress
 * The leader's bookkeeping per member (match/next, probe/replicate/snapshot flow states,
 * in-flight window, chunked snapshot cursor) and the tracker holding the membership and the
 * votes of the current election (etcd's tracker/ package, without joint consensus).
 */
import { assert } from "../../lib/assert.ts";
import { Inflights } from "./inflights.ts";
import { type VoteResult, committedIndex, voteResult } from "./quorum.ts";
import type { ConfState, LogIndex, NodeId, ProgressState, Snapshot } from "./types.ts";

export class Progress {
  /** Highest index known to be replicated on this member. */
  match: LogIndex;
  /** Next index to send. Invariant: match < next. */
  next: LogIndex;
  state: ProgressState = "probe";
  isLearner: boolean;
  /** Heard from since the last check-quorum round (and so reachable). */
  recentActive = true;
  /** Probe: one append is out; replicate: the window is full. Wait for an answer or a heartbeat. */
  paused = false;
  readonly inflights: Inflights;
  /** Snapshot state: index of the snapshot being installed. */
  pendingSnapshot: LogIndex = 0;
  /** Snapshot state: the snapshot being streamed and the bytes the follower acknowledged. */
  sending: Snapshot | undefined = undefined;
  sendingAcked = 0;

  constructor(match: LogIndex, next: LogIndex, isLearner: boolean, inflights: Inflights) {
    assert(match < next, "progress match < next");
    this.match = match;
    this.next = next;
    this.isLearner = isLearner;
    this.inflights = inflights;
  }

  private resetState(state: ProgressState): void {
    this.paused = false;
    this.pendingSnapshot = 0;
    this.sending = undefined;
    this.sendingAcked = 0;
    this.state = state;
    this.inflights.reset();
  }

  becomeProbe(): void {
    // Leaving snapshot state: the follower has at least the snapshot (or will tell us).
    const next = this.state === "snapshot" ? Math.max(this.match + 1, this.pendingSnapshot + 1) : this.match + 1;
    this.resetState("probe");
    this.next = next;
  }

  becomeReplicate(): void {
    this.resetState("replicate");
    this.next = this.match + 1;
  }

  becomeSnapshot(snapshot: Snapshot): void {
    this.resetState("snapshot");
    this.pendingSnapshot = snapshot.meta.index;
    this.sending = snapshot;
  }

  /** An acknowledgement up to n: returns whether match moved. */
  maybeUpdate(n: LogIndex): boolean {
    let updated = false;
    if (this.match < n) {
      this.match = n;
      updated = true;
      this.paused = false;
    }
    this.next = Math.max(this.next, n + 1);
    assert(this.match < this.next, "progress match < next after update");
    return updated;
  }

  /**
   * A rejection of the append after `rejected`, with the follower's hint. Returns false for
   * stale rejections (answers to appends we already moved past).
   */
  maybeDecrTo(rejected: LogIndex, matchHint: LogIndex): boolean {
    if (this.state === "replicate") {
      if (rejected <= this.match) return false;
      this.next = this.match + 1;
      return true;
    }
    if (this.next - 1 !== rejected) return false;
    this.next = Math.max(Math.min(rejected, matchHint + 1), this.match + 1);
    this.paused = false;
    return true;
  }

  /** Bookkeeping after sending `count` entries starting at `nextIndex`. */
  sentEntries(nextIndex: LogIndex, count: number, bytes: number): void {
    if (this.state === "replicate") {
      if (count > 0) {
        const last = nextIndex + count - 1;
        this.next = last + 1;
        this.inflights.add(last, bytes);
      }
      // Full window: wait for acks, or for a heartbeat answer (lost appends never ack).
      this.paused = this.inflights.full();
    } else if (this.state === "probe") {
      this.paused = true;
    }
  }

  isPaused(): boolean {
    if (this.state === "probe") return this.paused;
    if (this.state === "replicate") return this.paused;
    return true;
  }
}

export interface TrackerLimits {
  maxInflightMsgs: number;
  maxInflightBytes: number;
}

/** Membership + per-member progress + current votes. Ids are kept sorted for determinism. */
export class Tracker {
  voters: NodeId[] = [];
  learners: NodeId[] = [];
  readonly progress = new Map<NodeId, Progress>();
  readonly votes = new Map<NodeId, boolean>();
  private readonly limits: TrackerLimits;

  constructor(limits: TrackerLimits) {
    this.limits = limits;
  }

  confState(): ConfState {
    return { voters: this.voters.slice(), learners: this.learners.slice() };
  }

  /** Replace the membership (restore / restart); every member starts probing at `next`. */
  applyConfState(cs: ConfState, next: LogIndex): void {
    this.progress.clear();
    this.voters = [];
    this.learners = [];
    for (const id of cs.voters) this.addMember(id, false, next);
    for (const id of cs.learners) this.addMember(id, true, next);
  }

  addMember(id: NodeId, isLearner: boolean, next: LogIndex): void {
    assert(!this.progress.has(id), `member ${id} already present`);
    this.progress.set(id, this.newProgress(0, Math.max(next, 1), isLearner));
    this.setRole(id, isLearner);
  }

  removeMember(id: NodeId): void {
    this.progress.delete(id);
    this.voters = this.voters.filter((v) => v !== id);
    this.learners = this.learners.filter((v) => v !== id);
  }

  promote(id: NodeId): void {
    const pr = this.progress.get(id);
    assert(pr !== undefined && pr.isLearner, `promote ${id}: not a learner`);
    pr.isLearner = false;
    this.setRole(id, false);
  }

  private setRole(id: NodeId, isLearner: boolean): void {
    this.voters = this.voters.filter((v) => v !== id);
    this.learners = this.learners.filter((v) => v !== id);
    const list = isLearner ? this.learners : this.voters;
    list.push(id);
    list.sort((a, b) => a - b);
  }

  newProgress(match: LogIndex, next: LogIndex, isLearner: boolean): Progress {
    return new Progress(match, next, isLearner, new Inflights(this.limits.maxInflightMsgs, this.limits.maxInflightBytes));
  }

  isVoter(id: NodeId): boolean {
    const pr = this.progress.get(id);
    return pr !== undefined && !pr.isLearner;
  }

  /** Highest index on a majority of voters. */
  committed(): LogIndex {
    return committedIndex(this.voters, (id) => this.progress.get(id)?.match ?? 0);
  }

  /** Check-quorum: has a majority of voters been heard from this round? */
  quorumActive(selfId: NodeId): boolean {
    const active = new Map<NodeId, boolean>();
    for (const id of this.voters) active.set(id, id === selfId || this.progress.get(id)?.recentActive === true);
    return voteResult(this.voters, active) === "won";
  }

  resetVotes(): void {
    this.votes.clear();
  }

  recordVote(id: NodeId, granted: boolean): void {
    if (!this.votes.has(id)) this.votes.set(id, granted); // first answer per election counts
  }

  tally(): VoteResult {
    return voteResult(this.voters, this.votes);
  }
}
