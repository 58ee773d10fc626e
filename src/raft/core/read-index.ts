/**
 * @module raft/core/read-index
 * Linearizable reads without writing to the log (thesis §6.4): the leader notes its commit
 * index for a request, confirms it is still leader by a heartbeat round that a majority
 * answers carrying the request's context, then releases every request queued up to it.
 */
import { assert } from "../../lib/assert.ts";
import type { LogIndex, Message, NodeId } from "./types.ts";

interface PendingRead {
  index: LogIndex;
  request: Message;
  acks: Map<NodeId, boolean>;
}

export interface ReleasedRead {
  index: LogIndex;
  request: Message;
}

export class ReadOnly {
  private readonly pending = new Map<string, PendingRead>();
  /** Contexts in arrival order: confirming one confirms all earlier ones too. */
  private queue: string[] = [];
  private readonly maxPending: number;

  constructor(maxPending: number) {
    this.maxPending = maxPending;
  }

  /** Queue a request at the leader's current commit index; false if dropped (duplicate, full). */
  addRequest(index: LogIndex, request: Message): boolean {
    const ctx = request.context;
    if (this.pending.has(ctx) || this.queue.length >= this.maxPending) return false;
    this.pending.set(ctx, { index, request, acks: new Map() });
    this.queue.push(ctx);
    return true;
  }

  /** A heartbeat answer carrying ctx: returns the acks so far, or undefined if unknown. */
  recvAck(from: NodeId, ctx: string): ReadonlyMap<NodeId, boolean> | undefined {
    const p = this.pending.get(ctx);
    if (p === undefined) return undefined;
    p.acks.set(from, true);
    return p.acks;
  }

  /** Release every request up to and including ctx (a majority confirmed leadership). */
  advance(ctx: string): ReleasedRead[] {
    const at = this.queue.indexOf(ctx);
    if (at < 0) return [];
    const released: ReleasedRead[] = [];
    for (const c of this.queue.slice(0, at + 1)) {
      const p = this.pending.get(c);
      assert(p !== undefined, "queued read is pending");
      released.push({ index: p.index, request: p.request });
      this.pending.delete(c);
    }
    this.queue = this.queue.slice(at + 1);
    assert(this.queue.length === this.pending.size, "read queue and pending agree");
    return released;
  }

  /** The newest pending context, piggybacked on heartbeats so they double as confirmations. */
  lastPendingContext(): string {
    return this.queue[this.queue.length - 1] ?? "";
  }

  size(): number {
    return this.queue.length;
  }

  reset(): void {
    this.pending.clear();
    this.queue = [];
  }
}
