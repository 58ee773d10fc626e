/**
 * @module raft/driver/conf-changes
 * Membership changes waiting for their outcome: one proposed at a time by the leader (the
 * core refuses a second while one is pending), answered with the membership it made once
 * applied here. Failure policy: the core's refusal is a RaftChangeError; another leader's
 * entry at the same index, leadership lost or no answer within proposalTimeoutMs is
 * "unknown" (it may still have committed).
 */
import type { TimerHandle } from "../../lib/clock.ts";
import { type ConfChange, type ConfState, decodeConfChange, type Entry } from "../core/index.ts";
import { ProposalError, RaftChangeError } from "./api.ts";
import type { DriverContext } from "./context.ts";

interface PendingChange {
  index: number;
  term: number;
  resolve(value: ConfState): void;
  reject(error: Error): void;
  timer: TimerHandle;
}

export interface ConfChanges {
  changeMembership(change: ConfChange): Promise<ConfState>;
  /** Conf-change entries just applied: answer the membership changes waiting on them. */
  settle(changes: readonly Entry[], confState: ConfState): void;
  /** Leadership lost or stopping: every change waiting fails as "unknown". */
  failAll(why: string): void;
}

/** `flushProposals`: step the proposals queued before the change into the core first (arrival order). */
export function createConfChanges(ctx: DriverContext, flushProposals: () => void): ConfChanges {
  const pendingChanges = new Set<PendingChange>();
  const notLeader = () => Promise.reject(new ProposalError("not-leader", ctx.soft.lead, "not the leader"));

  function changeMembership(change: ConfChange): Promise<ConfState> {
    if (!ctx.serving) return notLeader();
    flushProposals(); // keep arrival order: what was proposed before goes in first
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

  function settle(changes: readonly Entry[], confState: ConfState): void {
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

  return {
    changeMembership,
    settle,
    failAll(why) {
      for (const w of pendingChanges) {
        pendingChanges.delete(w);
        ctx.clock.clear(w.timer);
        w.reject(new ProposalError("unknown", ctx.soft.lead, why));
      }
    },
  };
}
