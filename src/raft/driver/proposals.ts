/**
 * @module raft/driver/proposals
 * Proposals waiting for their outcome (membership changes: conf-changes.ts). Group commit: proposals are
 * queued as they arrive and stepped into the core together at the start of the next Ready
 * (bounded batches); each waits for its entry to be applied here, or for proposalTimeoutMs.
 * Failure policy: refused before entering the log is "not-leader" (safe to retry); anything
 * that may still commit is "unknown".
 */
import type { TimerHandle } from "../../lib/clock.ts";
import { NO_SPACE_MESSAGE } from "../../lib/store-full.ts";
import { type Envelope, ProposalError, encoder } from "./api.ts";
import type { DriverContext } from "./context.ts";

/** Bytes of proposals stepped into the core as one message (the rest go in the next ones). */
const PROPOSAL_BATCH_BYTES_MAX = 1024 * 1024;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: TimerHandle;
}

/** A proposal waiting for the next Ready (not yet in the log: refusing it is "not-leader"). */
interface Queued {
  tag: string;
  data: Uint8Array;
}

export type Outcome = { ok: true; value: unknown } | { ok: false; error: Error };

export interface Proposals {
  propose(command: unknown): Promise<unknown>;
  /** Step the queued proposals into the core (start of each Ready turn). */
  flush(): void;
  /** The entry tagged `tag` was applied here with `outcome`: answer its proposer, if waiting here. */
  settle(tag: string, outcome: Outcome): void;
  /** Leadership lost or stopping: refuse what is queued (`queuedWhy`), fail what waits (it may still commit). */
  failAll(queuedWhy: string, pendingWhy: string): void;
}

/**
 * `admit(bytes)`: may one more proposal of `bytes` be held in memory (false: the disk is full
 * and the backlog at its bound, refuse it with ENOSPC's answer).
 */
export function createProposals(ctx: DriverContext, admit: (bytes: number) => boolean): Proposals {
  const pending = new Map<string, Pending>();
  let queued: Queued[] = [];
  const notLeader = () => Promise.reject(new ProposalError("not-leader", ctx.soft.lead, "not the leader"));

  function rejectQueued(batch: Queued[], why: string): void {
    for (const q of batch) {
      const p = pending.get(q.tag);
      if (p === undefined) continue;
      pending.delete(q.tag);
      ctx.clock.clear(p.timer);
      p.reject(new ProposalError("not-leader", ctx.soft.lead, why));
    }
  }

  function flush(): void {
    if (queued.length === 0) return;
    const batch = queued;
    queued = [];
    if (ctx.soft.state !== "leader") return rejectQueued(batch, "not the leader");
    let from = 0;
    while (from < batch.length) {
      let to = from;
      let bytes = 0;
      while (to < batch.length && (to === from || bytes + (batch[to] as Queued).data.length <= PROPOSAL_BATCH_BYTES_MAX)) bytes += (batch[to++] as Queued).data.length;
      const chunk = batch.slice(from, to);
      const accepted = ctx.node.proposeMany(chunk.map((q) => q.data));
      if (!accepted.ok) rejectQueued(chunk, accepted.error.message);
      from = to;
    }
  }

  function propose(command: unknown): Promise<unknown> {
    if (!ctx.serving) return notLeader();
    const tag = `${ctx.bootNonce}.${ctx.nextSeq()}`;
    const data = encoder.encode(JSON.stringify({ p: tag, c: command } satisfies Envelope));
    if (!admit(data.length)) return Promise.reject(new ProposalError("no-space", ctx.soft.lead, NO_SPACE_MESSAGE));
    queued.push({ tag, data });
    ctx.schedule();
    return new Promise((resolve, reject) => {
      const timer = ctx.clock.setTimeout(() => {
        pending.delete(tag);
        reject(new ProposalError("unknown", ctx.soft.lead, `not committed within ${ctx.o.proposalTimeoutMs} ms`));
      }, ctx.o.proposalTimeoutMs);
      pending.set(tag, { resolve, reject, timer });
    });
  }

  function settle(tag: string, outcome: Outcome): void {
    const waiter = pending.get(tag);
    if (waiter === undefined) return;
    pending.delete(tag);
    ctx.clock.clear(waiter.timer);
    if (outcome.ok) waiter.resolve(outcome.value);
    else waiter.reject(outcome.error);
  }

  function failAll(queuedWhy: string, why: string): void {
    const never = queued;
    queued = [];
    rejectQueued(never, queuedWhy);
    for (const [tag, p] of pending) {
      pending.delete(tag);
      ctx.clock.clear(p.timer);
      p.reject(new ProposalError("unknown", ctx.soft.lead, why));
    }
  }

  return { propose, flush, settle, failAll };
}
