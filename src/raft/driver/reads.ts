/**
 * @module raft/driver/reads
 * Linearizable reads (ReadIndex, thesis §6.4): reads that arrive while a round is in flight
 * wait for the next one, so many reads share one round of heartbeats. A confirmed round is
 * released once this replica has applied up to the index the majority confirmed.
 * Failure policy: not serving or deposed is "not-leader"; no confirmation within
 * proposalTimeoutMs is "unknown" (the next round starts at once).
 */
import type { TimerHandle } from "../../lib/clock.ts";
import { ProposalError } from "./api.ts";
import type { DriverContext } from "./context.ts";

interface ReadWaiter {
  resolve(): void;
  reject(error: Error): void;
}

/** One ReadIndex round: every read that arrived before it was sent rides on it. */
interface ReadBatch {
  ctx: string;
  waiters: ReadWaiter[];
  timer: TimerHandle;
}

export interface Reads {
  readBarrier(): Promise<void>;
  /** A Ready's read state: the round `readCtx` is confirmed at commit `index`. */
  confirm(readCtx: string, index: number): void;
  /** Resolve the confirmed rounds whose index is applied here. */
  release(): void;
  /** Leadership lost or stopping: every read waiting fails. */
  failAll(why: string): void;
}

export function createReads(ctx: DriverContext): Reads {
  let inFlight: ReadBatch | undefined;
  let next: ReadWaiter[] = [];
  let confirmed: { index: number; waiters: ReadWaiter[] }[] = [];

  const reject = (waiters: ReadWaiter[], reason: ProposalError["reason"], why: string): void => {
    for (const w of waiters) w.reject(new ProposalError(reason, ctx.soft.lead, why));
  };

  function startRound(): void {
    if (inFlight !== undefined || next.length === 0) return;
    const waiters = next;
    next = [];
    if (!ctx.serving) return reject(waiters, "not-leader", "not the leader");
    const readCtx = `${ctx.bootNonce}.r${ctx.nextSeq()}`;
    const asked = ctx.node.readIndex(readCtx);
    if (!asked.ok) return reject(waiters, "not-leader", asked.error.message);
    inFlight = {
      ctx: readCtx,
      waiters,
      timer: ctx.clock.setTimeout(() => {
        if (inFlight?.ctx !== readCtx) return;
        inFlight = undefined;
        reject(waiters, "unknown", `leadership not confirmed by a majority within ${ctx.o.proposalTimeoutMs} ms`);
        startRound();
      }, ctx.o.proposalTimeoutMs),
    };
    ctx.schedule();
  }

  return {
    readBarrier() {
      if (!ctx.serving) return Promise.reject(new ProposalError("not-leader", ctx.soft.lead, "not the leader"));
      return new Promise<void>((resolve, rejectRead) => {
        next.push({ resolve, reject: rejectRead });
        startRound();
      });
    },
    confirm(readCtx, index) {
      if (inFlight === undefined || inFlight.ctx !== readCtx) return;
      ctx.clock.clear(inFlight.timer);
      confirmed.push({ index, waiters: inFlight.waiters });
      inFlight = undefined;
      startRound();
    },
    release() {
      if (confirmed.length === 0) return;
      const ready = confirmed.filter((r) => r.index <= ctx.appliedIndex);
      confirmed = confirmed.filter((r) => r.index > ctx.appliedIndex);
      for (const r of ready) for (const w of r.waiters) w.resolve();
    },
    failAll(why) {
      if (inFlight !== undefined) {
        ctx.clock.clear(inFlight.timer);
        reject(inFlight.waiters, "not-leader", why);
        inFlight = undefined;
      }
      reject(next, "not-leader", why);
      next = [];
      for (const r of confirmed) reject(r.waiters, "not-leader", why);
      confirmed = [];
    },
  };
}
