/**
 * @module raft/core/state
 * The in-memory state of one Raft replica and the role transitions (follower, pre-candidate,
 * candidate, leader) with the invariants they keep: the term never decreases, a vote is
 * cast at most once per term, a new leader appends an empty entry of its own term.
 */
import { assert } from "../../lib/assert.ts";
import type { RaftRng } from "./ports.ts";
import { RaftLog, entrySize } from "./log.ts";
import { Tracker } from "./progress.ts";
import { ReadOnly } from "./read-index.ts";
import {
  type Entry,
  type LogIndex,
  type Message,
  type MessageType,
  NONE,
  type NodeId,
  type RaftConfig,
  type ReadState,
  type SnapshotMeta,
  type StateType,
  type Term,
} from "./types.ts";

/** A snapshot being received chunk by chunk (lost on restart; the leader starts over). */
export interface SnapshotInbox {
  meta: SnapshotMeta;
  from: NodeId;
  parts: Uint8Array[];
  receivedBytes: number;
  totalBytes: number;
}

export interface RaftState {
  readonly id: NodeId;
  readonly config: RaftConfig;
  readonly rng: RaftRng;
  term: Term;
  vote: NodeId;
  lead: NodeId;
  state: StateType;
  readonly log: RaftLog;
  readonly tracker: Tracker;
  /** Outgoing messages, drained by ready(). */
  msgs: Message[];
  readStates: ReadState[];
  leadTransferee: NodeId;
  /** A leader proposes no conf change while one up to this index is unapplied. */
  pendingConfIndex: LogIndex;
  /** Payload bytes the leader appended but has not seen committed (bounded by config). */
  uncommittedSize: number;
  readonly readOnly: ReadOnly;
  /** ReadIndex requests that arrived before this leader committed an entry of its term. */
  pendingReadIndexMessages: Message[];
  electionElapsed: number;
  heartbeatElapsed: number;
  randomizedElectionTimeout: number;
  snapshotInbox: SnapshotInbox | undefined;
  /** Log index whose membership the tracker holds (conf changes at or below it are applied). */
  confIndex: LogIndex;
}

export const EMPTY_ENTRIES: readonly Entry[] = Object.freeze([]) as readonly Entry[];
const EMPTY_DATA = new Uint8Array(0);

/** Bound on queued ReadIndex requests per leader (limits everywhere). */
export const MAX_PENDING_READS = 4096;

export function newState(config: RaftConfig, log: RaftLog, rng: RaftRng): RaftState {
  return {
    id: config.id,
    config,
    rng,
    term: 0,
    vote: NONE,
    lead: NONE,
    state: "follower",
    log,
    tracker: new Tracker({ maxInflightMsgs: config.maxInflightMsgs, maxInflightBytes: config.maxInflightBytes }),
    msgs: [],
    readStates: [],
    leadTransferee: NONE,
    pendingConfIndex: 0,
    uncommittedSize: 0,
    readOnly: new ReadOnly(MAX_PENDING_READS),
    pendingReadIndexMessages: [],
    electionElapsed: 0,
    heartbeatElapsed: 0,
    randomizedElectionTimeout: config.electionTicks,
    snapshotInbox: undefined,
    confIndex: 0,
  };
}

/** A message with every field defaulted; callers set what their type needs. */
export function newMessage(type: MessageType, to: NodeId, term: Term): Message {
  return {
    type,
    from: NONE,
    to,
    term,
    logTerm: 0,
    index: 0,
    entries: EMPTY_ENTRIES,
    commit: 0,
    reject: false,
    rejectHint: 0,
    context: "",
    leaderTransfer: false,
  };
}

/** Queue a message. Proposals keep their own term (0, a local message); all else gets ours. */
export function send(r: RaftState, m: Message): void {
  assert(m.to !== r.id, `message ${m.type} to self`);
  // Forwarded messages keep their origin (a forwarded ReadIndex is answered to its origin).
  if (m.from === NONE) m.from = r.id;
  if (m.type === "vote" || m.type === "vote-resp" || m.type === "pre-vote" || m.type === "pre-vote-resp") {
    assert(m.term !== 0, `${m.type} needs an explicit term`);
  } else if (m.type !== "prop" && m.type !== "read-index") {
    m.term = r.term;
  }
  r.msgs.push(m);
}

export function resetRandomizedElectionTimeout(r: RaftState): void {
  const e = r.config.electionTicks;
  // [E, 2E): spreads candidates out so one usually wins before others time out (§5.2).
  r.randomizedElectionTimeout = r.rng.int(e, 2 * e - 1);
}

export const pastElectionTimeout = (r: RaftState): boolean => r.electionElapsed >= r.randomizedElectionTimeout;

/** Only a voter of the current config with no snapshot pending may campaign. */
export function promotable(r: RaftState): boolean {
  return r.tracker.isVoter(r.id) && !r.log.hasPendingSnapshot();
}

export function abortLeaderTransfer(r: RaftState): void {
  r.leadTransferee = NONE;
}

function reset(r: RaftState, term: Term): void {
  assert(term >= r.term, `term must not decrease: ${r.term} -> ${term}`);
  if (r.term !== term) {
    r.term = term;
    r.vote = NONE;
  }
  r.lead = NONE;
  r.electionElapsed = 0;
  r.heartbeatElapsed = 0;
  resetRandomizedElectionTimeout(r);
  abortLeaderTransfer(r);
  r.tracker.resetVotes();
  const last = r.log.lastIndex();
  // Our own copy counts toward a quorum only as far as it is persisted (see selfPersisted).
  const stable = r.log.lastStableIndex();
  for (const [id, pr] of r.tracker.progress) {
    const fresh = r.tracker.newProgress(id === r.id ? stable : 0, last + 1, pr.isLearner);
    // Followers must answer this leader before they count for check-quorum or get a snapshot.
    fresh.recentActive = id === r.id;
    r.tracker.progress.set(id, fresh);
  }
  r.pendingConfIndex = 0;
  r.uncommittedSize = 0;
  r.readOnly.reset();
  r.pendingReadIndexMessages = [];
}

export function becomeFollower(r: RaftState, term: Term, lead: NodeId): void {
  reset(r, term);
  r.lead = lead;
  r.state = "follower";
}

export function becomePreCandidate(r: RaftState): void {
  assert(r.state !== "leader", "leader cannot become pre-candidate");
  // Pre-vote changes neither term nor vote: a failed pre-election disturbs nobody.
  r.tracker.resetVotes();
  r.lead = NONE;
  r.state = "pre-candidate";
}

export function becomeCandidate(r: RaftState): void {
  assert(r.state !== "leader", "leader cannot become candidate");
  reset(r, r.term + 1);
  r.vote = r.id;
  r.state = "candidate";
}

export function becomeLeader(r: RaftState): void {
  assert(r.state === "candidate", "only a candidate becomes leader");
  reset(r, r.term);
  r.lead = r.id;
  r.state = "leader";
  const self = r.tracker.progress.get(r.id);
  assert(self !== undefined, "leader is a member");
  self.becomeReplicate();
  self.recentActive = true;
  // No conf change until everything before our term is applied (the single-server-change fix).
  r.pendingConfIndex = r.log.lastIndex();
  // An empty entry of our term lets us commit (and so learn) what predecessors left (§5.4.2).
  const appended = appendEntries(r, [{ type: "normal", data: EMPTY_DATA }]);
  assert(appended, "leader's empty entry is always accepted");
}

/** Leader: append proposals at our term. False when the uncommitted-bytes limit refuses them. */
export function appendEntries(r: RaftState, items: readonly { type: Entry["type"]; data: Uint8Array }[]): boolean {
  const bytes = items.reduce((n, it) => n + it.data.byteLength, 0);
  const limit = r.config.maxUncommittedEntriesSize;
  if (limit > 0 && bytes > 0 && r.uncommittedSize > 0 && r.uncommittedSize + bytes > limit) return false;
  r.uncommittedSize += bytes;
  const last = r.log.lastIndex();
  const ents: Entry[] = items.map((it, i) => ({ term: r.term, index: last + 1 + i, type: it.type, data: it.data }));
  r.log.append(ents);
  // Our own match moves when the driver has persisted them (selfPersisted), not here: the
  // driver may send them to followers before its own write is durable.
  return true;
}

/** Committed entries leave the uncommitted budget once the application has them. */
export function reduceUncommittedSize(r: RaftState, ents: readonly Entry[]): void {
  if (r.state !== "leader") return;
  let bytes = 0;
  for (const e of ents) bytes += entrySize(e);
  r.uncommittedSize = Math.max(0, r.uncommittedSize - bytes);
}
