/**
 * @module raft/core/types
 * Plain data shared by every part of Spur's Raft: log entries, messages, hard/soft state,
 * configuration, snapshots and the Ready batch. Everything here is serialisable data so the
 * transport can map it to protobuf and the simulator can copy, delay and duplicate it.
 */

/** A replica id. 0 means "nobody" (no leader known, no vote cast). */
export type NodeId = number;
/** A Raft term (monotonic per replica). */
export type Term = number;
/** A position in the replicated log; 0 is the empty log's dummy position. */
export type LogIndex = number;

export const NONE: NodeId = 0;

export type EntryType = "normal" | "conf-change";

/** One log entry. Entries are never mutated once created: replicas share them. */
export interface Entry {
  readonly term: Term;
  readonly index: LogIndex;
  readonly type: EntryType;
  readonly data: Uint8Array;
}

/** What must be durable before a replica answers anyone (Raft Figure 2, "persistent state"). */
export interface HardState {
  term: Term;
  vote: NodeId;
  commit: LogIndex;
}

/** The voting and non-voting members (one-server-at-a-time changes: no joint config). */
export interface ConfState {
  voters: NodeId[];
  learners: NodeId[];
}

export interface SnapshotMeta {
  index: LogIndex;
  term: Term;
  confState: ConfState;
}

/** A state-machine snapshot: `data` is opaque to Raft (Spur writes a SQLite file image). */
export interface Snapshot {
  meta: SnapshotMeta;
  data: Uint8Array;
}

/** One piece of an InstallSnapshot transfer (Raft §7: offset + data, done when complete). */
export interface SnapshotChunk {
  meta: SnapshotMeta;
  /** Byte offset of `data` within the snapshot; in "snap-resp" the next offset wanted. */
  offset: number;
  totalBytes: number;
  data: Uint8Array;
}

export type ConfChangeType = "add-learner" | "add-node" | "remove-node";

/** One membership change. "add-node" promotes an existing, caught-up learner. */
export interface ConfChange {
  type: ConfChangeType;
  nodeId: NodeId;
  /**
   * Opaque to Raft, replicated with the change (etcd's ConfChange.Context): Spur puts the
   * member's address here, so every replica, including ones added later, learns it from the log.
   */
  context?: string;
}

export type MessageType =
  | "prop" // proposal forwarded from a follower to the leader
  | "app" // AppendEntries
  | "app-resp"
  | "vote" // RequestVote
  | "vote-resp"
  | "pre-vote" // thesis §9.6: ask before disrupting anyone's term
  | "pre-vote-resp"
  | "heartbeat"
  | "heartbeat-resp"
  | "snap" // one InstallSnapshot chunk
  | "snap-resp" // chunk acknowledgement (next offset wanted)
  | "transfer-leader" // `from` is the transferee (etcd convention)
  | "timeout-now" // leader tells the transferee to campaign at once
  | "read-index" // follower asks the leader for a read index
  | "read-index-resp";

/**
 * A Raft message. All fields are always present (cheap to build, one shape for the
 * transport); `chunk` only on "snap"/"snap-resp". Messages are never mutated after send.
 */
export interface Message {
  type: MessageType;
  from: NodeId;
  to: NodeId;
  term: Term;
  /** "app": term of the entry before `entries`; "app-resp" reject: the hint's term. */
  logTerm: Term;
  /** "app": index before `entries`; "app-resp": last matching index; votes: last index. */
  index: LogIndex;
  entries: readonly Entry[];
  commit: LogIndex;
  reject: boolean;
  /** "app-resp" reject: the follower's guess of the last index where the logs may match. */
  rejectHint: LogIndex;
  /** ReadIndex request context; also carried by heartbeats to confirm leadership. */
  context: string;
  /** Vote requests caused by a leadership transfer: voters skip the leader-lease check. */
  leaderTransfer: boolean;
  chunk?: SnapshotChunk;
}

export type StateType = "follower" | "pre-candidate" | "candidate" | "leader";

/** Volatile state the application may want to observe; not persisted. */
export interface SoftState {
  lead: NodeId;
  state: StateType;
}

/** A completed ReadIndex: once applied >= index, a read with `context` is linearizable. */
export interface ReadState {
  index: LogIndex;
  context: string;
}

/**
 * One batch of work for the driver, which must: persist `snapshot`, `entries` and
 * `hardState` (fsync when `mustSync`), then send `messages`, then apply `snapshot` and
 * `committedEntries` to the state machine, then call `advance(ready)`.
 */
export interface Ready {
  softState?: SoftState;
  hardState?: HardState;
  entries: Entry[];
  snapshot?: Snapshot;
  committedEntries: Entry[];
  /** Messages that may leave only once this Ready's writes are durable. */
  messages: Message[];
  /**
   * A leader's appends, heartbeats and snapshot chunks, which the driver may send before it
   * persists this Ready (thesis §10.2.1: the leader writes its log in parallel with
   * replicating it). Safe because the leader counts its own copy of an entry toward a
   * quorum only once advance() reports it persisted, and nothing in these messages
   * depends on this Ready's hard state (a Ready that changes term or vote has none here).
   */
  messagesBeforePersist: Message[];
  readStates: ReadState[];
  mustSync: boolean;
}

export type ProgressState = "probe" | "replicate" | "snapshot";

/** The leader's view of one follower, as reported by status(). */
export interface ProgressStatus {
  match: LogIndex;
  next: LogIndex;
  state: ProgressState;
  isLearner: boolean;
  recentActive: boolean;
}

/** The cheap part of Status (no allocation of membership or progress). */
export interface BasicStatus {
  id: NodeId;
  term: Term;
  vote: NodeId;
  commit: LogIndex;
  lead: NodeId;
  state: StateType;
  applied: LogIndex;
}

export interface Status extends BasicStatus {
  firstIndex: LogIndex;
  lastIndex: LogIndex;
  /** Current membership (from the last applied conf change or restored snapshot). */
  confState: ConfState;
  /** Index whose membership `confState` is; a snapshot at `applied` may use it if applied >= confIndex. */
  confIndex: LogIndex;
  leadTransferee: NodeId;
  /** Leader only: every member's replication progress, keyed by id. */
  progress: Map<NodeId, ProgressStatus>;
}

/** Tunables; see `resolveConfig` in raft.ts for the defaults and why. */
export interface RaftConfig {
  id: NodeId;
  /** E: a follower campaigns after a randomized timeout in [E, 2E) ticks. */
  electionTicks: number;
  /** The leader sends heartbeats every this many ticks (must be < electionTicks). */
  heartbeatTicks: number;
  preVote: boolean;
  checkQuorum: boolean;
  /** Upper bound on entry payload bytes in one "app" (at least one entry is always sent). */
  maxSizePerMsg: number;
  /** Appends in flight to one follower in replicate state before the leader waits. */
  maxInflightMsgs: number;
  /** Entry payload bytes in flight to one follower (0: no byte limit). */
  maxInflightBytes: number;
  /** Upper bound on payload bytes of committedEntries in one Ready. */
  maxCommittedSizePerReady: number;
  /** Upper bound on the leader's uncommitted payload bytes (0: no limit). */
  maxUncommittedEntriesSize: number;
  /** Bytes per InstallSnapshot chunk. */
  snapshotChunkBytes: number;
}

/** Error codes returned (as `Result` errors) by propose, proposeConfChange, transferLeader. */
export const RaftErrorCode = {
  proposalDropped: "ProposalDropped",
  notLeader: "NotLeader",
  confChangePending: "ConfChangePending",
  learnerBehind: "LearnerBehind",
  badConfChange: "BadConfChange",
} as const;
