/**
 * @module sim/raft/replica
 * One simulated server: a Raft core over a MemoryStorage "disk", the counter application,
 * and the driver's Ready pipeline cut into its four steps (persist, send, apply, advance) so
 * the simulator can crash it between any two. A crash loses memory and unsynced writes.
 */
import type { Rng } from "../../../src/lib/rng.ts";
import { createRng } from "../../../src/lib/rng.ts";
import { type RaftNode, createRaft } from "../../../src/raft/core/ready.ts";
import type { Entry, HardState, RaftConfig, ReadState, Ready, Snapshot } from "../../../src/raft/core/types.ts";
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";
import { CounterApp } from "./app.ts";
import type { SimNetwork } from "./network.ts";

/** What the simulator wants to see at each step of the pipeline. */
export interface ReplicaObserver {
  persisting(replica: SimReplica, rd: Ready): void;
  appliedEntry(replica: SimReplica, entry: Entry, opId: number | undefined): void;
  appliedSnapshot(replica: SimReplica, snapshot: Snapshot): void;
  readDone(replica: SimReplica, context: string, value: number): void;
}

/** "sent-early": the leader's appends left, its own write of them has not happened yet. */
export type Stage = "idle" | "sent-early" | "persisted" | "sent" | "applied";

export interface CompactionPolicy {
  /** Take a snapshot once this many entries were applied since the last one. */
  snapshotEveryEntries: number;
  /** Entries kept in the log behind the snapshot (for slow followers). */
  trailingEntries: number;
}

export class SimReplica {
  readonly id: number;
  readonly storage: MemoryStorage;
  node: RaftNode | undefined;
  app: CounterApp = new CounterApp();
  /** Index the application has applied (equal to the core's applied once advanced). */
  appliedIndex = 0;
  stage: Stage = "idle";
  private rd: Ready | undefined;
  /** The hard state that survives a crash (written with fsync). */
  private durableHard: HardState = { term: 0, vote: 0, commit: 0 };
  incarnation = 0;
  /** Outstanding reads of this incarnation: context -> read index once known. */
  readonly pendingReads = new Map<string, number | undefined>();
  /** Removed from the cluster and shut down for good. */
  retired = false;
  /** Frozen (a long GC or VM pause): no ticks, no work, no input; memory kept. */
  paused = false;
  /** Applied a conf change removing itself (a real server would then shut down). */
  knowsRemoved = false;
  private readonly config: Partial<RaftConfig> & { id: number };
  private readonly seed: number;

  constructor(config: Partial<RaftConfig> & { id: number }, storage: MemoryStorage, seed: number) {
    this.id = config.id;
    this.config = config;
    this.storage = storage;
    this.seed = seed;
  }

  get live(): boolean {
    return this.node !== undefined;
  }

  start(observer: ReplicaObserver): void {
    this.incarnation++;
    const rng: Rng = createRng((this.seed * 7919 + this.id * 104729 + this.incarnation * 31) >>> 0);
    this.node = createRaft(this.config, this.storage, rng);
    const snap = this.storage.snapshot();
    this.app = CounterApp.restore(snap.data);
    this.appliedIndex = snap.meta.index;
    this.durableHard = this.storage.hardStateNow();
    if (snap.meta.index > 0) observer.appliedSnapshot(this, snap);
  }

  /** Power loss: memory, the Ready in progress and unsynced writes are gone. */
  crash(): void {
    this.paused = false;
    this.node = undefined;
    this.rd = undefined;
    this.stage = "idle";
    this.pendingReads.clear();
    this.storage.setHardState(this.durableHard);
  }

  hasWork(): boolean {
    const node = this.node;
    if (node === undefined || this.paused) return false;
    return this.stage !== "idle" || node.hasReady();
  }

  /** Run the next step of the Ready pipeline. */
  work(observer: ReplicaObserver, net: SimNetwork, nowTick: number, policy: CompactionPolicy): void {
    const node = this.node;
    if (node === undefined) return;
    if (this.stage === "idle") {
      const rd = node.ready();
      observer.persisting(this, rd);
      this.rd = rd;
      if (rd.messagesBeforePersist.length > 0) {
        // As the driver does: the leader's appends go out before its own write (a crash
        // now loses its copy of them, never anything acknowledged).
        for (const m of rd.messagesBeforePersist) net.send(m, nowTick);
        this.stage = "sent-early";
        return;
      }
      this.persist(rd);
      this.stage = "persisted";
      return;
    }
    const rd = this.rd as Ready;
    if (this.stage === "sent-early") {
      this.persist(rd);
      this.stage = "persisted";
    } else if (this.stage === "persisted") {
      // Only after the write is durable may anyone hear about it.
      for (const m of rd.messages) net.send(m, nowTick);
      this.stage = "sent";
    } else if (this.stage === "sent") {
      this.apply(observer, rd);
      this.stage = "applied";
    } else {
      node.advance(rd);
      this.rd = undefined;
      this.stage = "idle";
      this.maybeCompact(policy);
      this.serveReads(observer);
    }
  }

  private persist(rd: Ready): void {
    if (rd.snapshot !== undefined) this.storage.applySnapshot(rd.snapshot);
    this.storage.append(rd.entries);
    if (rd.hardState !== undefined) this.storage.setHardState(rd.hardState);
    // Without mustSync the write stays in the page cache: a crash may lose it.
    if (rd.mustSync) this.durableHard = this.storage.hardStateNow();
  }

  private apply(observer: ReplicaObserver, rd: Ready): void {
    if (rd.snapshot !== undefined) {
      this.app = CounterApp.restore(rd.snapshot.data);
      this.appliedIndex = rd.snapshot.meta.index;
      observer.appliedSnapshot(this, rd.snapshot);
    }
    for (const e of rd.committedEntries) {
      if (e.index !== this.appliedIndex + 1) throw new Error(`replica ${this.id} applies ${e.index} after ${this.appliedIndex}`);
      const opId = e.type === "normal" ? this.app.apply(e.data) : undefined;
      this.appliedIndex = e.index;
      observer.appliedEntry(this, e, opId);
    }
    for (const rs of rd.readStates) this.noteReadState(rs);
  }

  private noteReadState(rs: ReadState): void {
    if (this.pendingReads.has(rs.context)) this.pendingReads.set(rs.context, rs.index);
  }

  private serveReads(observer: ReplicaObserver): void {
    for (const [ctx, index] of this.pendingReads) {
      if (index !== undefined && index <= this.appliedIndex) {
        this.pendingReads.delete(ctx);
        observer.readDone(this, ctx, this.app.ops.length);
      }
    }
  }

  private maybeCompact(policy: CompactionPolicy): void {
    const node = this.node as RaftNode;
    const basic = node.basicStatus();
    if (basic.applied !== this.appliedIndex) throw new Error(`replica ${this.id}: app at ${this.appliedIndex}, raft applied ${basic.applied}`);
    const snapIndex = this.storage.snapshot().meta.index;
    if (basic.applied - snapIndex < policy.snapshotEveryEntries) return;
    const st = node.status();
    if (st.applied < st.confIndex) return; // membership at `applied` not known here yet
    this.storage.createSnapshot(st.applied, st.confState, this.app.serialize());
    this.storage.compact(Math.max(snapIndex, st.applied - policy.trailingEntries));
  }
}
