/**
 * @module tests/unit/raft/harness
 * A small, fully controlled cluster for unit tests: FIFO message delivery, a link filter for
 * partitions, a driver that runs each Ready to completion (persist, send, apply, advance),
 * and a fixed "random" source so election timeouts are exactly E ticks.
 */
import { type RaftNode, createRaft } from "../../../src/raft/core/ready.ts";
import type { Entry, Message, RaftConfig, ReadState } from "../../../src/raft/core/types.ts";
import type { RaftRng } from "../../../src/raft/core/ports.ts";
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";

/** Always the lowest value: election timeouts are exactly electionTicks. */
export const fixedRng: RaftRng = { int: (lo) => lo };

export const E = 5;

export interface Peer {
  id: number;
  node: RaftNode;
  storage: MemoryStorage;
  applied: Entry[];
  readStates: ReadState[];
  snapshotsApplied: number;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();
export const text = (e: Entry): string => decoder.decode(e.data);

/** Hand-built entries (index, term) with payload "i@t". */
export function entries(from: number, to: number, term: number): Entry[] {
  const out: Entry[] = [];
  for (let i = from; i <= to; i++) out.push({ index: i, term, type: "normal", data: encoder.encode(`${i}@${term}`) });
  return out;
}

/** Bootstrapped storage for `voters` with extra entries and a hard-state term. */
export function storageWith(voters: number[], extra: Entry[], term: number): MemoryStorage {
  const s = MemoryStorage.bootstrap(voters);
  s.append(extra);
  s.setHardState({ term, vote: 0, commit: voters.length });
  return s;
}

/** A message with defaults, for hand-crafted steps. */
export function msg(m: Partial<Message> & Pick<Message, "type" | "from" | "to" | "term">): Message {
  return { logTerm: 0, index: 0, entries: [], commit: 0, reject: false, rejectHint: 0, context: "", leaderTransfer: false, ...m };
}

export class TestCluster {
  readonly peers = new Map<number, Peer>();
  queue: Message[] = [];
  /** Every message ever sent, for assertions on traffic. */
  readonly sent: Message[] = [];
  /** Return false to drop a message (partitions, loss). */
  allow: (m: Message) => boolean = () => true;
  /** Crashed peers: they neither run nor receive until restart(). */
  readonly down = new Set<number>();
  /** Called for every message delivered (transcript tests print them). */
  onDeliver: (m: Message) => void = () => {};
  readonly config: Omit<Partial<RaftConfig>, "id">;

  /** `storages` replaces the bootstrapped storage of some ids (hand-built logs). */
  constructor(ids: number[], config: Omit<Partial<RaftConfig>, "id"> = {}, storages: Map<number, MemoryStorage> = new Map()) {
    this.config = { electionTicks: E, heartbeatTicks: 1, ...config };
    for (const id of ids) this.add(id, storages.get(id) ?? MemoryStorage.bootstrap(ids));
    this.stabilize();
  }

  add(id: number, storage: MemoryStorage = new MemoryStorage()): Peer {
    const peer: Peer = { id, node: createRaft({ ...this.config, id }, storage, fixedRng), storage, applied: [], readStates: [], snapshotsApplied: 0 };
    this.peers.set(id, peer);
    return peer;
  }

  peer(id: number): Peer {
    const p = this.peers.get(id);
    if (p === undefined) throw new Error(`no peer ${id}`);
    return p;
  }

  node(id: number): RaftNode {
    return this.peer(id).node;
  }

  /** Drive every Ready of one peer to completion; returns whether there was one. */
  process(id: number): boolean {
    const p = this.peer(id);
    if (this.down.has(id) || !p.node.hasReady()) return false;
    const rd = p.node.ready();
    for (const m of rd.messagesBeforePersist) {
      this.sent.push(m);
      if (this.allow(m)) this.queue.push(m);
    }
    if (rd.snapshot !== undefined) p.storage.applySnapshot(rd.snapshot);
    p.storage.append(rd.entries);
    if (rd.hardState !== undefined) p.storage.setHardState(rd.hardState);
    for (const m of rd.messages) {
      this.sent.push(m);
      if (this.allow(m)) this.queue.push(m);
    }
    if (rd.snapshot !== undefined) {
      p.snapshotsApplied++;
      p.applied = [];
    }
    for (const e of rd.committedEntries) if (e.type === "normal" && e.data.byteLength > 0) p.applied.push(e);
    p.readStates.push(...rd.readStates);
    p.node.advance(rd);
    return true;
  }

  /** Deliver queued messages (FIFO) and run Readies until nothing moves. */
  stabilize(maxRounds = 10_000): void {
    for (let i = 0; i < maxRounds; i++) {
      let moved = false;
      for (const id of this.peers.keys()) moved = this.process(id) || moved;
      const batch = this.queue;
      this.queue = [];
      for (const m of batch) {
        const target = this.peers.get(m.to);
        if (target === undefined || this.down.has(m.to) || !this.allow(m)) continue;
        this.onDeliver(m);
        target.node.step(m);
        moved = true;
      }
      if (!moved) return;
    }
    throw new Error("cluster did not stabilize");
  }

  tick(id: number, n = 1): void {
    if (this.down.has(id)) return;
    for (let i = 0; i < n; i++) this.node(id).tick();
  }

  /** Tick everyone n times, stabilizing after each tick. */
  tickAll(n: number): void {
    for (let i = 0; i < n; i++) {
      for (const id of this.peers.keys()) this.tick(id);
      this.stabilize();
    }
  }

  /** Let `id` time out and win an election (the others have not ticked). */
  elect(id: number): void {
    this.tick(id, E);
    this.stabilize();
    if (this.node(id).basicStatus().state !== "leader") throw new Error(`${id} did not win`);
  }

  /** Cut `id` off in both directions. */
  isolate(id: number): void {
    this.allow = (m) => m.from !== id && m.to !== id;
  }

  heal(): void {
    this.allow = () => true;
  }

  propose(id: number, data: string): void {
    const r = this.node(id).propose(data);
    if (!r.ok) throw new Error(r.error.message);
    this.stabilize();
  }

  appliedTexts(id: number): string[] {
    return this.peer(id).applied.map(text);
  }

  /** Crash and restart `id` from what its storage holds (everything here is persisted). */
  restart(id: number): void {
    this.down.delete(id);
    const p = this.peer(id);
    p.node = createRaft({ ...this.config, id }, p.storage, fixedRng);
    p.applied = [];
  }
}
