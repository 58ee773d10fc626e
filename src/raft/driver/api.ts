/**
 * @module raft/driver/api
 * What the Raft driver is given and what it gives back: its ports (storage, transport, the
 * application), its options, its interface, the errors its promises reject with, and the
 * envelope a proposal travels in. The driver itself is assembled in raft/driver.ts from the
 * pieces next to this file.
 */
import type { Clock } from "../../lib/clock.ts";
import type { ConfChange, ConfState, Entry, Message, NodeId, Snapshot, Status } from "../core/index.ts";
import type { RaftRng, WritableStorage } from "../core/ports.ts";

/** How often a replica whose disk is full tries the refused write again. */
export const PERSIST_RETRY_MS = 1000;

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
   * The same image built off this thread, so that the event loop only records it; undefined
   * when that is not available (then takeSnapshot is used). `encodeMs`: the time it took there.
   * `file`: the image is already durable in that file beside the log (raft/snapshot-file.ts), so
   * the store records only its name.
   */
  takeSnapshotAsync?(appliedIndex: number): Promise<BuiltSnapshot> | undefined;
  /**
   * The size of the application's state in entries' worth: a snapshot costs about as much as
   * applying that many entries (the whole state is restored and encoded), so the next one is
   * not due before as many entries as the state weighed at the last were applied since (scaled
   * by the replica's jitter). Keeps the snapshot cost per entry bounded however large the state
   * grows; absent: 0.
   */
  snapshotWeight?(): number;
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
  /** Time and timers (ticks, proposal timeouts, retries); the system clock when not given. */
  clock?: Clock;
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
 * The daemon's election timeout in ticks (SpurRaftElectionTicks; with its 50 ms tick a follower
 * campaigns after 1-2 s of silence, etcd's scale). Why so long: a leader whose thread gets no
 * CPU sends no heartbeat, and on a 2-core machine shared by three replicas, their clients and
 * other work, bench/scale/ha.ts measured leader threads runnable but not running for 200-660
 * ms (main-thread CPU time a fifth to a half of the gap; fsync and apply a few ms of it), and a
 * follower's for 950 ms while its snapshot worker encoded. With 6 ticks (300-600 ms) every such
 * stall was an election, and every election fails the submissions in flight. A killed leader is
 * still replaced at once (its closed sockets: RaftDriver.peerLost); only a frozen one waits
 * for the timeout. tests/unit/raft/driver-stall.test.ts holds both sides on simulated time.
 */
export const DAEMON_ELECTION_TICKS = 20;

/** A snapshot built off the replica's thread: its image, or the file it is durable in; `bytes`: the image's size. */
export type BuiltSnapshot = { encodeMs: number; bytes: number } & ({ image: Uint8Array } | { file: string });

/**
 * Without takeSnapshotAsync, a leader snapshots (a stall of its thread) only once its log is
 * this many times the followers' threshold.
 */
export const LEADER_SNAPSHOT_FACTOR = 5;

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

export interface Envelope {
  /** Proposal tag: replica id, boot nonce and sequence, so old tags in the log never match. */
  p: string;
  c: unknown;
}

export const encoder = new TextEncoder();
export const decoder = new TextDecoder();

/** The command a normal entry's data carries (what applyCommand is given); throws on bytes that are no envelope. */
export function decodeCommand(data: Uint8Array): unknown {
  return (JSON.parse(decoder.decode(data)) as Envelope).c;
}

