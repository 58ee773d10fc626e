/**
 * @module raft/driver
 * The only asynchronous part of Spur's Raft: it ticks the pure core every tickMs, feeds it
 * peer messages and proposals, and runs each Ready in the order the core requires: the
 * leader's appends (messagesBeforePersist: followers write in parallel with the leader) ->
 * persist (one SQLite transaction, fsync) -> send -> apply -> advance. Group commit: proposals are
 * queued as they arrive and stepped into the core together at the start of the next Ready
 * (one message, consecutive entries, one append to each follower, one fsync); a Ready that
 * only moves the commit index is written without fsync (its mustSync is false). A
 * proposal's promise resolves with what the application returned when the entry was applied here.
 * Failure policy: a proposal that cannot be known to commit (this replica stopped leading,
 * or it took longer than proposalTimeoutMs) is rejected as "outcome unknown"; the caller
 * must not assume it failed. Nothing else is retried here: Raft itself re-sends.
 */
import { assert } from "../lib/assert.ts";
import { createRaft, type ConfChange, type ConfState, decodeConfChange, type Entry, type Message, type NodeId, type RaftNode, type Ready, type Snapshot, type SoftState, type Status } from "./core/index.ts";
import type { RaftRng, WritableStorage } from "./core/ports.ts";
import { NO_SPACE_MESSAGE, diskFullReporter, isDiskFull } from "../lib/store-full.ts";

/** How often a replica whose disk is full tries the refused write again. */
const PERSIST_RETRY_MS = 1000;

export interface DriverPorts {
  id: NodeId;
  storage: WritableStorage;
  rng: RaftRng;
  /** Hand messages to the transport (fire and forget; Raft tolerates loss). */
  send(messages: Message[]): void;
  /** Apply one committed command (already decoded); the result goes to its proposer. */
  applyCommand(command: unknown, index: number): unknown;
  /** Replace the application's state with a snapshot image. */
  restore(snapshot: Snapshot): void;
  /** Image of the application's state as of the last applied entry. */
  takeSnapshot(appliedIndex: number): Uint8Array;
  /**
   * The same image built off this thread (a worker that keeps its own copy of the state, fed
   * through `committed`), so that the event loop only writes it; undefined when that is not
   * available (then takeSnapshot is used). `encodeMs`: the time it took there.
   */
  takeSnapshotAsync?(appliedIndex: number): Promise<{ image: Uint8Array; encodeMs: number }> | undefined;
  /** Every committed entry, in order, just before this replica applies it (feeds takeSnapshotAsync's copy). */
  committed?(entries: readonly Entry[]): void;
  /**
   * This replica became (true) or stopped being (false) the serving leader: a leader that
   * has applied everything committed before its term, so its state is current.
   */
  onServing(serving: boolean): void;
  /** A membership change was applied here (every replica, in log order); `confState` is the result. */
  onConfChange?(change: ConfChange, confState: ConfState, index: number): void;
  /** A committed entry could not be applied (or decoded) and was skipped here (counted for sdiag and metrics). */
  onEntrySkipped?(index: number): void;
  logger?: { info(o: object): void; warn(o: object): void };
}

export interface DriverOptions {
  tickMs: number;
  electionTicks: number;
  heartbeatTicks: number;
  proposalTimeoutMs: number;
  /**
   * Take a snapshot once about this many entries were applied since the last one: each
   * replica draws its threshold in [n, 1.5 n) anew after each snapshot, so replicas do not
   * all snapshot at the same index at the same moment.
   */
  snapshotEveryEntries: number;
  /** Entries kept in the log behind a snapshot, for followers that are a little behind. */
  trailingEntries: number;
  /**
   * While the disk refuses writes, a leader keeps new proposals in memory until they can be
   * written; past this many entries (or backlogBytesMax bytes) it refuses new ones with
   * ENOSPC's answer instead of growing without bound.
   */
  backlogEntriesMax: number;
  backlogBytesMax: number;
}

export const DEFAULT_DRIVER_OPTIONS: DriverOptions = {
  tickMs: 50, electionTicks: 3, heartbeatTicks: 1, proposalTimeoutMs: 10_000, snapshotEveryEntries: 20_000, trailingEntries: 2_000,
  backlogEntriesMax: 10_000, backlogBytesMax: 64 * 1024 * 1024,
};

/**
 * Without takeSnapshotAsync, a leader snapshots (a stall of its thread) only once its log is
 * this many times the followers' threshold.
 */
const LEADER_SNAPSHOT_FACTOR = 5;

/**
 * Why a proposal was not answered with a result. `unknown`: it may still commit. `no-space`:
 * refused before it entered the log (the disk is full and the backlog at its bound): it
 * will never commit, and the caller may retry.
 */
export class ProposalError extends Error {
  constructor(
    readonly reason: "not-leader" | "unknown" | "no-space",
    readonly leader: NodeId,
    message: string,
  ) {
    super(message);
  }
}

export interface RaftDriver {
  propose(command: unknown): Promise<unknown>;
  /**
   * Linearizable read point (ReadIndex, thesis §6.4): resolves once a majority confirmed
   * this replica still leads after the call, and everything committed before it is applied
   * here, so the state read next is at least as new as any acknowledged write. Rejects with
   * ProposalError("not-leader") when this replica does not lead or loses leadership first
   * (a deposed leader never answers), or "unknown" when no confirmation came in time.
   */
  readBarrier(): Promise<void>;
  /**
   * Leader: propose one membership change; resolves with the new membership once the change
   * is applied here. Rejects with ProposalError like propose(), or with the core's refusal
   * (`RaftChangeError`: a change still pending, learner behind, not a member...).
   */
  changeMembership(change: ConfChange): Promise<ConfState>;
  /** Messages from peers (already authenticated by the transport). */
  receive(messages: Message[]): void;
  /**
   * The transport lost its connection to `id`. If that is our leader, forget it at once
   * (so we vote for whoever campaigns first) and campaign soon ourselves unless another
   * replica does: the surviving voters go in id order, two ticks apart (the first at once),
   * so they do not split the vote.
   */
  peerLost(id: NodeId): void;
  start(): void;
  stop(): void;
  /** Leader with current state: the only replica that answers clients and acts. */
  isServing(): boolean;
  /** Committed entries this replica could not apply and skipped (each logged once). */
  applyFailures(): number;
  leader(): NodeId;
  status(): Status;
}

/** The Raft core refused a membership change (`code` is a RaftErrorCode). */
export class RaftChangeError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface PendingChange {
  index: number;
  term: number;
  resolve(value: ConfState): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

interface ReadWaiter {
  resolve(): void;
  reject(error: Error): void;
}

/** One ReadIndex round: every read that arrived before it was sent rides on it. */
interface ReadBatch {
  ctx: string;
  waiters: ReadWaiter[];
  timer: ReturnType<typeof setTimeout>;
}

/** A proposal waiting for the next Ready (not yet in the log: refusing it is "not-leader"). */
interface Queued {
  tag: string;
  data: Uint8Array;
}

/** Bytes of proposals stepped into the core as one message (the rest go in the next ones). */
const PROPOSAL_BATCH_BYTES_MAX = 1024 * 1024;

interface Envelope {
  /** Proposal tag: replica id, boot nonce and sequence, so old tags in the log never match. */
  p: string;
  c: unknown;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The command a normal entry's data carries (what applyCommand is given); throws on bytes that are no envelope. */
export function decodeCommand(data: Uint8Array): unknown {
  return (JSON.parse(decoder.decode(data)) as Envelope).c;
}

export function createRaftDriver(ports: DriverPorts, options: Partial<DriverOptions> = {}): RaftDriver {
  const o: DriverOptions = { ...DEFAULT_DRIVER_OPTIONS, ...options };
  const node: RaftNode = createRaft(
    { id: ports.id, electionTicks: o.electionTicks, heartbeatTicks: o.heartbeatTicks },
    ports.storage,
    ports.rng,
  );
  const bootNonce = `${ports.id}.${Date.now().toString(36)}.${Math.floor(Math.random() * 1e9).toString(36)}`;
  let seq = 0;
  const pending = new Map<string, Pending>();
  let queued: Queued[] = [];
  const pendingChanges = new Set<PendingChange>();
  let soft: SoftState = { lead: 0, state: "follower" };
  let serving = false;
  /** As leader: the index of this term's first entry; serving once applied reaches it. */
  let servingFrom = Number.POSITIVE_INFINITY;
  let snapIndex = ports.storage.snapshot().meta.index;
  let appliedIndex = snapIndex;
  const drawSnapshotThreshold = (): number => o.snapshotEveryEntries + ports.rng.int(0, Math.floor(o.snapshotEveryEntries / 2));
  /** Entries applied past the last snapshot before the next one (jittered per replica). */
  let snapshotDue = drawSnapshotThreshold();
  /** A snapshot being built off this thread (at most one at a time). */
  let snapshotInFlight = false;
  let scheduled = false;
  let running = false;
  /** A Ready the disk refused (full): retried before any newer one is taken. */
  let unpersisted: Ready | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Entries (and their bytes) in memory that the disk has not taken yet: counted from the first refused write. */
  const backlog = { entries: 0, bytes: 0 };
  const diskFull = diskFullReporter(ports.logger ?? { warn: () => undefined, info: () => undefined }, "raft log");
  /** Committed entries the application could not apply (skipped; see skipFailedEntry). */
  let applyFailures = 0;
  let ticker: ReturnType<typeof setInterval> | undefined;
  let lostTimer: ReturnType<typeof setTimeout> | undefined;
  /** Reads: the round in flight, those waiting for the next round, confirmed ones waiting for apply. */
  let readInFlight: ReadBatch | undefined;
  let readsNext: ReadWaiter[] = [];
  let readsConfirmed: { index: number; waiters: ReadWaiter[] }[] = [];

  if (snapIndex > 0) ports.restore(ports.storage.snapshot());

  function schedule(): void {
    if (scheduled || !running) return;
    scheduled = true;
    setImmediate(processReady);
  }

  function processReady(): void {
    scheduled = false;
    if (!running) return;
    try {
      flushProposals();
      if (unpersisted !== undefined) {
        const held = unpersisted;
        if (!persist(held)) return;
        unpersisted = undefined;
        backlog.entries = 0;
        backlog.bytes = 0;
        afterPersist(held);
      }
      while (node.hasReady()) {
        const rd = node.ready();
        // The leader's appends leave before its own fsync: followers write in parallel with it.
        if (rd.messagesBeforePersist.length > 0) ports.send(rd.messagesBeforePersist);
        if (!persist(rd)) {
          // Keep the Ready outstanding: its messages (acks, votes) stay unsent and nothing
          // of it is applied, so this replica counts toward no quorum it did not persist.
          unpersisted = rd;
          backlog.entries = rd.entries.length;
          backlog.bytes = rd.entries.reduce((n, e) => n + e.data.length, 0);
          return;
        }
        afterPersist(rd);
      }
    } catch (error) {
      // An invariant broke (storage, apply): stopping is safer than serving wrong data.
      ports.logger?.warn({ message: "raft driver stopped on an invariant failure", error: String((error as Error).stack ?? error) });
      stop();
      throw error;
    }
  }

  /**
   * Write a Ready's entries, hard state and snapshot in one transaction. False when the disk
   * is full: the transaction rolled back, the failure is logged once, and the same Ready is
   * tried again every PERSIST_RETRY_MS until the disk takes it (the replica stays up).
   */
  function persist(rd: Ready): boolean {
    const s = ports.storage;
    if (rd.snapshot === undefined && rd.entries.length === 0 && rd.hardState === undefined) return true;
    try {
      s.atomically(() => {
        if (rd.snapshot !== undefined) s.applySnapshot(rd.snapshot);
        s.append(rd.entries);
        if (rd.hardState !== undefined) s.setHardState(rd.hardState);
      }, rd.mustSync);
    } catch (error) {
      // atomically() rolled back the file and the store's view of it: nothing of rd is kept.
      if (!isDiskFull(error)) throw error;
      diskFull.failed(error);
      if (retryTimer === undefined) {
        retryTimer = setTimeout(() => {
          retryTimer = undefined;
          schedule();
        }, PERSIST_RETRY_MS);
      }
      return false;
    }
    diskFull.succeeded();
    return true;
  }

  function afterPersist(rd: Ready): void {
    if (rd.messages.length > 0) ports.send(rd.messages);
    if (rd.snapshot !== undefined) {
      const started = performance.now();
      ports.restore(rd.snapshot);
      appliedIndex = rd.snapshot.meta.index;
      snapIndex = appliedIndex;
      ports.logger?.info({ message: "snapshot installed from the leader", index: appliedIndex, bytes: rd.snapshot.data.length, ms: Math.round(performance.now() - started) });
    }
    ports.committed?.(rd.committedEntries);
    for (const e of rd.committedEntries) applyEntry(e);
    for (const rs of rd.readStates) confirmRead(rs.context, rs.index);
    releaseReads();
    if (rd.softState !== undefined) changeSoft(rd.softState);
    if (soft.state === "leader" && !serving && appliedIndex >= servingFrom) {
      serving = true;
      ports.onServing(true);
    }
    node.advance(rd);
    // advance() applied the conf changes to the core: report them with the membership they made.
    const changes = rd.committedEntries.filter((e) => e.type === "conf-change");
    if (changes.length > 0) afterConfChanges(changes);
    maybeSnapshot();
  }

  /** Step the queued proposals into the core, as few messages as the batch bound allows. */
  function flushProposals(): void {
    if (queued.length === 0) return;
    const batch = queued;
    queued = [];
    if (soft.state !== "leader") return rejectQueued(batch, "not the leader");
    let from = 0;
    while (from < batch.length) {
      let to = from;
      let bytes = 0;
      while (to < batch.length && (to === from || bytes + (batch[to] as Queued).data.length <= PROPOSAL_BATCH_BYTES_MAX)) bytes += (batch[to++] as Queued).data.length;
      const chunk = batch.slice(from, to);
      const accepted = node.proposeMany(chunk.map((q) => q.data));
      if (!accepted.ok) rejectQueued(chunk, accepted.error.message);
      from = to;
    }
  }

  /** Proposals that never entered the log: refused, so the caller may safely retry. */
  function rejectQueued(batch: Queued[], why: string): void {
    for (const q of batch) {
      const p = pending.get(q.tag);
      if (p === undefined) continue;
      pending.delete(q.tag);
      clearTimeout(p.timer);
      p.reject(new ProposalError("not-leader", soft.lead, why));
    }
  }

  function applyEntry(e: Entry): void {
    assert(e.index === appliedIndex + 1, `apply ${e.index} right after ${appliedIndex}`);
    appliedIndex = e.index;
    if (e.type !== "normal" || e.data.length === 0) return;
    let env: Envelope | undefined;
    let outcome: { ok: true; value: unknown } | { ok: false; error: Error };
    try {
      env = JSON.parse(decoder.decode(e.data)) as Envelope;
      outcome = { ok: true, value: ports.applyCommand(env.c, e.index) };
    } catch (error) {
      outcome = { ok: false, error: skipFailedEntry(e, error) };
    }
    const waiter = env === undefined ? undefined : pending.get(env.p);
    if (env !== undefined && waiter !== undefined) {
      pending.delete(env.p);
      clearTimeout(waiter.timer);
      if (outcome.ok) waiter.resolve(outcome.value);
      else waiter.reject(outcome.error);
    }
  }

  /**
   * A committed entry the application could not apply (or decode) must not wedge the
   * cluster: stopping here would stop every replica on the same entry, and every restart
   * would replay it and stop again. It is recorded (logged once here, counted) and
   * skipped, identically on every replica, since every replica applies the same entries
   * in the same order. The application is responsible for not half-applying it: Spur's
   * apply() validates before it mutates and never throws (sched/model/apply.ts).
   */
  function skipFailedEntry(e: Entry, error: unknown): Error {
    applyFailures += 1;
    ports.onEntrySkipped?.(e.index);
    ports.logger?.warn({ message: "committed entry not applied: skipped", index: e.index, term: e.term, error: String((error as Error).stack ?? error) });
    return new Error(`entry ${e.index} could not be applied: ${String((error as Error).message ?? error)}`);
  }

  function startReadRound(): void {
    if (readInFlight !== undefined || readsNext.length === 0) return;
    const waiters = readsNext;
    readsNext = [];
    if (!serving) return rejectReads(waiters, "not-leader", "not the leader");
    const ctx = `${bootNonce}.r${seq++}`;
    const asked = node.readIndex(ctx);
    if (!asked.ok) return rejectReads(waiters, "not-leader", asked.error.message);
    readInFlight = {
      ctx,
      waiters,
      timer: setTimeout(() => {
        if (readInFlight?.ctx !== ctx) return;
        readInFlight = undefined;
        rejectReads(waiters, "unknown", `leadership not confirmed by a majority within ${o.proposalTimeoutMs} ms`);
        startReadRound();
      }, o.proposalTimeoutMs),
    };
    schedule();
  }

  function confirmRead(ctx: string, index: number): void {
    if (readInFlight === undefined || readInFlight.ctx !== ctx) return;
    clearTimeout(readInFlight.timer);
    readsConfirmed.push({ index, waiters: readInFlight.waiters });
    readInFlight = undefined;
    startReadRound();
  }

  function releaseReads(): void {
    if (readsConfirmed.length === 0) return;
    const ready = readsConfirmed.filter((r) => r.index <= appliedIndex);
    readsConfirmed = readsConfirmed.filter((r) => r.index > appliedIndex);
    for (const r of ready) for (const w of r.waiters) w.resolve();
  }

  function rejectReads(waiters: ReadWaiter[], reason: ProposalError["reason"], why: string): void {
    for (const w of waiters) w.reject(new ProposalError(reason, soft.lead, why));
  }

  function failReads(why: string): void {
    if (readInFlight !== undefined) {
      clearTimeout(readInFlight.timer);
      rejectReads(readInFlight.waiters, "not-leader", why);
      readInFlight = undefined;
    }
    rejectReads(readsNext, "not-leader", why);
    readsNext = [];
    for (const r of readsConfirmed) rejectReads(r.waiters, "not-leader", why);
    readsConfirmed = [];
  }

  function afterConfChanges(changes: Entry[]): void {
    const confState = node.status().confState;
    for (const e of changes) {
      const cc = decodeConfChange(e.data);
      ports.logger?.info({ message: "membership changed", change: cc.type, node: cc.nodeId, index: e.index, voters: confState.voters.join(","), learners: confState.learners.join(",") });
      ports.onConfChange?.(cc, confState, e.index);
      for (const w of pendingChanges) {
        if (w.index !== e.index) continue;
        pendingChanges.delete(w);
        clearTimeout(w.timer);
        if (w.term === e.term) w.resolve(confState);
        else w.reject(new ProposalError("unknown", soft.lead, "another leader's entry took the membership change's place"));
      }
    }
  }

  function changeSoft(next: SoftState): void {
    const wasLeader = soft.state === "leader";
    ports.logger?.info({ message: "raft role", role: next.state, leader: next.lead, term: node.basicStatus().term });
    soft = next;
    if (!wasLeader && next.state === "leader") servingFrom = node.status().lastIndex;
    if (wasLeader && next.state !== "leader") {
      servingFrom = Number.POSITIVE_INFINITY;
      const never = queued;
      queued = [];
      rejectQueued(never, "leadership lost before the request was proposed");
      failPending("unknown", "leadership lost before the request was committed");
      failReads("leadership lost before the read was confirmed");
      if (serving) {
        serving = false;
        ports.onServing(false);
      }
    }
  }

  function failPending(reason: ProposalError["reason"], why: string): void {
    for (const w of pendingChanges) {
      pendingChanges.delete(w);
      clearTimeout(w.timer);
      w.reject(new ProposalError(reason, soft.lead, why));
    }
    for (const [tag, p] of pending) {
      pending.delete(tag);
      clearTimeout(p.timer);
      p.reject(new ProposalError(reason, soft.lead, why));
    }
  }

  function maybeSnapshot(): void {
    if (snapshotInFlight || appliedIndex - snapIndex < snapshotDue) return;
    const st = node.status();
    if (st.applied < st.confIndex || st.applied !== appliedIndex) return;
    const building = ports.takeSnapshotAsync?.(appliedIndex);
    if (building !== undefined) return snapshotInBackground(building, appliedIndex, st.confState);
    // Taking a snapshot here stalls this thread (seconds at 100k jobs) and with it the
    // leader's heartbeats. So a leader due for one first hands leadership to a caught-up
    // follower (then snapshots as a follower); only without one does it wait for a much
    // longer log and take the stall.
    if (soft.state === "leader" && handOver()) return;
    if (soft.state === "leader" && appliedIndex - snapIndex < snapshotDue * LEADER_SNAPSHOT_FACTOR) return;
    const started = performance.now();
    recordSnapshot(appliedIndex, st.confState, ports.takeSnapshot(appliedIndex), started, { encodeMs: 0, askedAt: started });
  }

  function snapshotInBackground(building: Promise<{ image: Uint8Array; encodeMs: number }>, index: number, confState: ConfState): void {
    snapshotInFlight = true;
    const askedAt = performance.now();
    building.then(
      ({ image, encodeMs }) => {
        snapshotInFlight = false;
        // Stopped, or a newer snapshot came from the leader meanwhile: this one is of no use.
        if (!running || index <= snapIndex) return;
        recordSnapshot(index, confState, image, performance.now(), { encodeMs, askedAt });
        schedule();
      },
      (error: unknown) => {
        snapshotInFlight = false;
        ports.logger?.warn({ message: "snapshot not taken", index, error: String((error as Error).message ?? error) });
      },
    );
  }

  /** Write the image at `index` and compact the log behind it (this thread's only cost of an async snapshot). */
  function recordSnapshot(index: number, confState: ConfState, image: Uint8Array, started: number, timing: { encodeMs: number; askedAt: number }): void {
    const s = ports.storage;
    try {
      // Not fsynced (durable false): nothing waits on it, and a crash that loses it loses the
      // compaction with it (the store keeps order): the previous snapshot and the log remain.
      // The next Ready's fsync makes it durable.
      s.atomically(() => {
        s.createSnapshot(index, confState, image);
        s.compact(Math.max(snapIndex, index - o.trailingEntries));
      }, false);
    } catch (error) {
      // No room for the image: keep the log as it is and try at a later entry.
      if (!isDiskFull(error)) throw error;
      diskFull.failed(error);
      return;
    }
    snapIndex = index;
    snapshotDue = drawSnapshotThreshold();
    const now = performance.now();
    ports.logger?.info({
      message: "snapshot taken", index, bytes: image.length,
      // blockMs: this thread's time (all of it, without a worker); ms: from asking to written.
      blockMs: Math.round((now - started) * 10) / 10, ms: Math.round(now - timing.askedAt), encodeMs: Math.round(timing.encodeMs),
    });
  }

  /** Ask the most caught-up follower to take over; true when a transfer is under way. */
  function handOver(): boolean {
    const st = node.status();
    if (st.leadTransferee !== 0) return true;
    let best = 0;
    let bestMatch = -1;
    for (const [id, pr] of st.progress) {
      if (id === ports.id || pr.isLearner || !pr.recentActive) continue;
      if (pr.match > bestMatch) [best, bestMatch] = [id, pr.match];
    }
    if (best === 0 || bestMatch < st.commit) return false;
    ports.logger?.info({ message: "handing leadership over before a snapshot", to: best });
    return node.transferLeader(best).ok;
  }

  function stop(): void {
    running = false;
    serving = false;
    if (ticker !== undefined) clearInterval(ticker);
    ticker = undefined;
    if (retryTimer !== undefined) clearTimeout(retryTimer);
    retryTimer = undefined;
    if (lostTimer !== undefined) clearTimeout(lostTimer);
    lostTimer = undefined;
    const never = queued;
    queued = [];
    rejectQueued(never, "controller stopping");
    failReads("controller stopping");
    failPending("unknown", "controller stopping");
  }

  return {
    propose(command) {
      if (!serving) return Promise.reject(new ProposalError("not-leader", soft.lead, "not the leader"));
      const tag = `${bootNonce}.${seq++}`;
      const data = encoder.encode(JSON.stringify({ p: tag, c: command } satisfies Envelope));
      if (unpersisted !== undefined) {
        // The disk refuses writes: what is proposed now waits in memory. Bounded, then refused
        // with ENOSPC's answer (nothing entered the log: a retry cannot commit twice).
        if (backlog.entries + 1 > o.backlogEntriesMax || backlog.bytes + data.length > o.backlogBytesMax) {
          return Promise.reject(new ProposalError("no-space", soft.lead, NO_SPACE_MESSAGE));
        }
        backlog.entries += 1;
        backlog.bytes += data.length;
      }
      queued.push({ tag, data });
      schedule();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(tag);
          reject(new ProposalError("unknown", soft.lead, `not committed within ${o.proposalTimeoutMs} ms`));
        }, o.proposalTimeoutMs);
        pending.set(tag, { resolve, reject, timer });
      });
    },
    readBarrier() {
      if (!serving) return Promise.reject(new ProposalError("not-leader", soft.lead, "not the leader"));
      return new Promise<void>((resolve, reject) => {
        readsNext.push({ resolve, reject });
        startReadRound();
      });
    },
    changeMembership(change) {
      if (!serving) return Promise.reject(new ProposalError("not-leader", soft.lead, "not the leader"));
      flushProposals(); // keep arrival order: what was proposed before goes in first
      const accepted = node.proposeConfChange(change);
      if (!accepted.ok) return Promise.reject(new RaftChangeError(accepted.error.code, accepted.error.message));
      const index = node.status().lastIndex;
      const term = node.basicStatus().term;
      schedule();
      return new Promise<ConfState>((resolve, reject) => {
        const w: PendingChange = {
          index, term, resolve, reject,
          timer: setTimeout(() => {
            pendingChanges.delete(w);
            reject(new ProposalError("unknown", soft.lead, `membership change not applied within ${o.proposalTimeoutMs} ms`));
          }, o.proposalTimeoutMs),
        };
        pendingChanges.add(w);
      });
    },
    receive(messages) {
      if (!running) return;
      // Another replica already campaigns for the lost leader's place: let it, do not split the vote.
      if (lostTimer !== undefined && messages.some((m) => (m.type === "pre-vote" || m.type === "vote") && m.from !== ports.id)) {
        clearTimeout(lostTimer);
        lostTimer = undefined;
      }
      for (const m of messages) if (m.to === ports.id) node.step(m);
      schedule();
    },
    peerLost(id) {
      if (!running || lostTimer !== undefined || soft.state !== "follower" || soft.lead !== id) return;
      const others = node.status().confState.voters.filter((v) => v !== id).sort((a, b) => a - b);
      const rank = others.indexOf(ports.id);
      if (!node.leaderUnreachable(id) || rank < 0) return;
      schedule();
      // Two ticks apart: under load a pre-vote can take tens of ms to be read by the next in line.
      const delayMs = rank * 2 * o.tickMs + ports.rng.int(0, Math.max(1, Math.floor(o.tickMs / 5)));
      lostTimer = setTimeout(() => {
        lostTimer = undefined;
        if (!running || !node.campaignNow()) return;
        ports.logger?.info({ message: "connection to the leader lost: campaigning", leader: id, afterMs: delayMs });
        schedule();
      }, delayMs);
    },
    start() {
      running = true;
      let lastTickMs = performance.now();
      ticker = setInterval(() => {
        const nowMs = performance.now();
        // A stalled event loop delays heartbeats: past an election timeout, followers campaign.
        if (nowMs - lastTickMs > o.tickMs * o.electionTicks) ports.logger?.warn({ message: "raft tick late", lateMs: Math.round(nowMs - lastTickMs - o.tickMs) });
        lastTickMs = nowMs;
        node.tick();
        schedule();
      }, o.tickMs);
      schedule();
    },
    stop,
    isServing: () => serving,
    applyFailures: () => applyFailures,
    leader: () => soft.lead,
    status: () => node.status(),
  };
}
