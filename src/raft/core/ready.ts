/**
 * @module raft/core/ready
 * The public face of the core, shaped like etcd's RawNode: feed ticks, messages and client
 * requests in; take a Ready out (what to persist, send and apply); call advance() when done.
 * Synchronous and deterministic: no timers, sockets, disk, clock or global randomness.
 */
import { assert } from "../../lib/assert.ts";
import { type Result, err, ok } from "../../lib/result.ts";
import type { RaftRng, Storage } from "./ports.ts";
import { applyConfChangeEntry, proposeConfChange } from "./confchange.ts";
import { campaignNow, leaderUnreachable, loadRaft, resolveConfig, step, tick } from "./raft.ts";
import { selfPersisted } from "./replicate.ts";
import { type RaftState, newMessage, reduceUncommittedSize } from "./state.ts";
import {
  type BasicStatus,
  type ConfChange,
  type Entry,
  type HardState,
  type Message,
  type NodeId,
  type ProgressStatus,
  type RaftConfig,
  RaftErrorCode,
  type Ready,
  type SoftState,
  type Status,
  type Term,
} from "./types.ts";

export interface RaftNode {
  /** Advance the logical clock by one tick (the driver calls this every tickMs). */
  tick(): void;
  /** Deliver a message from a peer. */
  step(message: Message): void;
  /** Propose a command; ok means accepted for replication (not yet committed). */
  propose(data: Uint8Array | string): Result<void>;
  /**
   * Propose several commands as one message: they become consecutive entries of one append
   * (group commit), all accepted or all refused.
   */
  proposeMany(data: readonly Uint8Array[]): Result<void>;
  /** Leader only: propose one membership change. */
  proposeConfChange(cc: ConfChange): Result<void>;
  /** Ask for a linearizable read point; answered by a ReadState carrying `context`. */
  readIndex(context: string): Result<void>;
  /**
   * The connection to `id` dropped: if it is this follower's leader, forget it, so that
   * its lease no longer makes us ignore candidates (see raft.leaderUnreachable).
   */
  leaderUnreachable(id: NodeId): boolean;
  /** A follower that knows no leader campaigns now rather than at its election timeout. */
  campaignNow(): boolean;
  /** Ask the leader to hand leadership to `transferee`. */
  transferLeader(transferee: NodeId): Result<void>;
  /** Is there work for the driver? False while a Ready is outstanding. */
  hasReady(): boolean;
  ready(): Ready;
  advance(ready: Ready): void;
  status(): Status;
  basicStatus(): BasicStatus;
  /** Term of log entry i as this replica sees it (tests and simulation checkers). */
  termAt(i: number): Term | undefined;
}

const encoder = new TextEncoder();

const hardStateOf = (r: RaftState): HardState => ({ term: r.term, vote: r.vote, commit: r.log.committed });
const softStateOf = (r: RaftState): SoftState => ({ lead: r.lead, state: r.state });
const sameHard = (a: HardState, b: HardState): boolean => a.term === b.term && a.vote === b.vote && a.commit === b.commit;
const sameSoft = (a: SoftState, b: SoftState): boolean => a.lead === b.lead && a.state === b.state;

/** The RawNode's own bookkeeping around the core: what the last Ready already reported. */
interface RawNode {
  r: RaftState;
  prevSoft: SoftState;
  prevHard: HardState;
  outstanding: Ready | undefined;
}

function hasReady(n: RawNode): boolean {
  const r = n.r;
  if (n.outstanding !== undefined) return false;
  if (r.msgs.length > 0 || r.readStates.length > 0) return true;
  if (r.log.unstable.entries.length > 0 || r.log.hasPendingSnapshot()) return true;
  if (r.log.hasNextCommittedEntries()) return true;
  return !sameSoft(softStateOf(r), n.prevSoft) || !sameHard(hardStateOf(r), n.prevHard);
}

/** A leader's messages that depend on nothing this Ready writes (see Ready.messagesBeforePersist). */
const SENT_BEFORE_PERSIST: ReadonlySet<Message["type"]> = new Set(["app", "heartbeat", "snap", "timeout-now"]);

function takeReady(n: RawNode): Ready {
  assert(n.outstanding === undefined, "ready() before advance() of the previous Ready");
  const r = n.r;
  const hard = hardStateOf(r);
  const soft = softStateOf(r);
  const early = r.state === "leader" && hard.term === n.prevHard.term && hard.vote === n.prevHard.vote;
  const rd: Ready = {
    entries: r.log.unstableEntries(),
    committedEntries: r.log.nextCommittedEntries(r.config.maxCommittedSizePerReady),
    messages: early ? r.msgs.filter((m) => !SENT_BEFORE_PERSIST.has(m.type)) : r.msgs,
    messagesBeforePersist: early ? r.msgs.filter((m) => SENT_BEFORE_PERSIST.has(m.type)) : [],
    readStates: r.readStates,
    mustSync: false,
  };
  if (r.log.unstable.snapshot !== undefined) rd.snapshot = r.log.unstable.snapshot;
  if (!sameSoft(soft, n.prevSoft)) rd.softState = soft;
  if (!sameHard(hard, n.prevHard)) rd.hardState = hard;
  // Term and vote must be durable before any message that depends on them leaves.
  rd.mustSync = rd.entries.length > 0 || rd.snapshot !== undefined || hard.term !== n.prevHard.term || hard.vote !== n.prevHard.vote;
  assert(hard.commit >= n.prevHard.commit, "commit never decreases");
  assert(hard.term >= n.prevHard.term, "term never decreases");
  n.prevSoft = soft;
  n.prevHard = hard;
  r.msgs = [];
  r.readStates = [];
  n.outstanding = rd;
  return rd;
}

function advance(n: RawNode, rd: Ready): void {
  assert(rd === n.outstanding, "advance() takes the last Ready");
  const r = n.r;
  n.outstanding = undefined;
  if (rd.snapshot !== undefined) {
    r.log.unstable.stableSnapTo(rd.snapshot.meta.index);
    r.log.appliedSnapshot(rd.snapshot.meta.index);
  }
  const lastEntry = rd.entries[rd.entries.length - 1];
  if (lastEntry !== undefined) {
    r.log.unstable.stableTo(lastEntry.index, lastEntry.term);
    if (r.log.term(lastEntry.index) === lastEntry.term) selfPersisted(r, lastEntry.index);
  }
  const lastApplied = rd.committedEntries[rd.committedEntries.length - 1];
  if (lastApplied === undefined) return;
  assertContiguous(rd.committedEntries);
  // Membership changes take effect once applied, in log order (then the leader may act on them).
  for (const e of rd.committedEntries) if (e.type === "conf-change") applyConfChangeEntry(r, e);
  r.log.appliedTo(lastApplied.index);
  reduceUncommittedSize(r, rd.committedEntries);
}

function localMessage(r: RaftState, type: Message["type"]): Message {
  const m = newMessage(type, r.id, 0);
  m.from = r.id;
  return m;
}

const dropped = (what: string): Result<void> => err(RaftErrorCode.proposalDropped, `${what} dropped`);

/** Create a replica over `storage` (fresh or restarted: everything comes from storage). */
export function createRaft(config: Partial<RaftConfig> & { id: NodeId }, storage: Storage, rng: RaftRng): RaftNode {
  const r = loadRaft(resolveConfig(config), storage, rng);
  const n: RawNode = { r, prevSoft: softStateOf(r), prevHard: hardStateOf(r), outstanding: undefined };
  return {
    tick: () => tick(r),
    step: (m) => {
      assert(m.to === r.id, `message for ${m.to} stepped into ${r.id}`);
      step(r, m);
    },
    propose: (data) => {
      const m = localMessage(r, "prop");
      const bytes = typeof data === "string" ? encoder.encode(data) : data;
      m.entries = [{ term: 0, index: 0, type: "normal", data: bytes }];
      return step(r, m) ? ok(undefined) : dropped("proposal");
    },
    proposeMany: (data) => {
      assert(data.length > 0, "proposeMany needs at least one command");
      const m = localMessage(r, "prop");
      m.entries = data.map((bytes) => ({ term: 0, index: 0, type: "normal" as const, data: bytes }));
      return step(r, m) ? ok(undefined) : dropped("proposal");
    },
    proposeConfChange: (cc) => proposeConfChange(r, cc),
    readIndex: (context) => {
      if (context === "") return err(RaftErrorCode.proposalDropped, "read index needs a non-empty context");
      const m = localMessage(r, "read-index");
      m.context = context;
      return step(r, m) ? ok(undefined) : dropped("read index");
    },
    leaderUnreachable: (id) => leaderUnreachable(r, id),
    campaignNow: () => campaignNow(r),
    transferLeader: (transferee) => {
      const m = localMessage(r, "transfer-leader");
      m.from = transferee; // etcd convention: the request comes "from" the transferee
      return step(r, m) ? ok(undefined) : dropped("leader transfer");
    },
    hasReady: () => hasReady(n),
    ready: () => takeReady(n),
    advance: (rd) => advance(n, rd),
    status: () => statusOf(r),
    basicStatus: () => ({ id: r.id, term: r.term, vote: r.vote, commit: r.log.committed, lead: r.lead, state: r.state, applied: r.log.applied }),
    termAt: (i) => r.log.term(i),
  };
}

function assertContiguous(ents: readonly Entry[]): void {
  for (let i = 1; i < ents.length; i++) {
    assert((ents[i] as Entry).index === (ents[i - 1] as Entry).index + 1, "entries contiguous");
  }
}

function statusOf(r: RaftState): Status {
  const progress = new Map<NodeId, ProgressStatus>();
  if (r.state === "leader") {
    for (const [id, pr] of r.tracker.progress) {
      progress.set(id, { match: pr.match, next: pr.next, state: pr.state, isLearner: pr.isLearner, recentActive: pr.recentActive });
    }
  }
  return {
    id: r.id,
    term: r.term,
    vote: r.vote,
    commit: r.log.committed,
    lead: r.lead,
    state: r.state,
    applied: r.log.applied,
    firstIndex: r.log.firstIndex(),
    lastIndex: r.log.lastIndex(),
    confState: r.tracker.confState(),
    confIndex: r.confIndex,
    leadTransferee: r.leadTransferee,
    progress,
  };
}
