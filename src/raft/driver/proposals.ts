/**
 * @module raft/driver/proposals
 * Proposals and membership changes waiting for their outcome. Group commit: proposals are
 * queued as they arrive and stepped into the core together at the start of the next Ready
 * (bounded batches); each waits for its entry to be applied here, or for proposalTimeoutMs.
 * Failure policy: refused before entering the log is "not-leader" (safe to retry); anything
 * that may still commit is "unknown".
 */
import type { TimerHandle } from "../../lib/clock.ts";
import { NO_SPACE_MESSAGE } from "../../lib/store-full.ts";
import { type ConfChange, type ConfState, decodeConfChange, type Entry } from "../core/index.ts";
import { type Envelope, ProposalError, RaftChangeError, encoder } from "./api.ts";
import type { DriverContext } from "./context.ts";

/** Bytes of proposals stepped into the core as one message (the rest go in the next ones). */
const PROPOSAL_BATCH_BYTES_MAX = 1024 * 1024;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: TimerHandle;
}

interface PendingChange {
  index: number;
  term: number;
  resolve(value: ConfState): void;
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
  changeMembership(change: ConfChange): Promise<ConfState>;
  /** Step the queued proposals into the core (start of each Ready turn). */
  flush(): void;
  /** The entry tagged `tag` was applied here with `outcome`: answer its proposer, if waiting here. */
  settle(tag: string, outcome: Outcome): void;
  /** Conf-change entries just applied: answer the membership changes waiting on them. */
  settleChanges(changes: readonly Entry[], confState: ConfState): void;
  /** Leadership lost or stopping: refuse what is queued (`queuedWhy`), fail what waits (it may still commit). */
  failAll(queuedWhy: string, pendingWhy: string): void;
}

/**
 * `admit(bytes)`: may one more proposal of `bytes` be held in memory (false: the disk is full
 * and the backlog at its bound, refuse it with ENOSPC's answer).
 */
export function createProposals(ctx: DriverContext, admit: (bytes: number) => boolean): Proposals {
  const pending = new Map<string, Pending>();
  const pendingChanges = new Set<PendingChange>();
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

  function changeMembership(change: ConfChange): Promise<ConfState> {
    if (!ctx.serving) return notLeader();
    flush(); // keep arrival order: what was proposed before goes in first
    const accepted = ctx.node.proposeConfChange(change);
    if (!accepted.ok) return Promise.reject(new RaftChangeError(accepted.error.code, accepted.error.message));
    const index = ctx.node.status().lastIndex;
    const term = ctx.node.basicStatus().term;
    ctx.schedule();
    return new Promise<ConfState>((resolve, reject) => {
      const w: PendingChange = {
        index, term, resolve, reject,
        timer: ctx.clock.setTimeout(() => {
          pendingChanges.delete(w);
          reject(new ProposalError("unknown", ctx.soft.lead, `membership change not applied within ${ctx.o.proposalTimeoutMs} ms`));
        }, ctx.o.proposalTimeoutMs),
      };
      pendingChanges.add(w);
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

  function settleChanges(changes: readonly Entry[], confState: ConfState): void {
    for (const e of changes) {
      const cc = decodeConfChange(e.data);
      ctx.ports.logger?.info({ message: "membership changed", change: cc.type, node: cc.nodeId, index: e.index, voters: confState.voters.join(","), learners: confState.learners.join(",") });
      ctx.ports.onConfChange?.(cc, confState, e.index);
      for (const w of pendingChanges) {
        if (w.index !== e.index) continue;
        pendingChanges.delete(w);
        ctx.clock.clear(w.timer);
        if (w.term === e.term) w.resolve(confState);
        else w.reject(new ProposalError("unknown", ctx.soft.lead, "another leader's entry took the membership change's place"));
      }
    }
  }

  function failAll(queuedWhy: string, why: string): void {
    const never = queued;
    queued = [];
    rejectQueued(never, queuedWhy);
    for (const w of pendingChanges) {
      pendingChanges.delete(w);
      ctx.clock.clear(w.timer);
      w.reject(new ProposalError("unknown", ctx.soft.lead, why));
    }
    for (const [tag, p] of pending) {
      pending.delete(tag);
      ctx.clock.clear(p.timer);
      p.reject(new ProposalError("unknown", ctx.soft.lead, why));
    }
  }

  return { propose, changeMembership, flush, settle, settleChanges, failAll };
}
