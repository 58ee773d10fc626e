/**
 * @module raft/driver/election-timers
 * The driver's two clocks for the core: the tick every tickMs (which drives heartbeats and
 * election timeouts inside the core, and warns when the event loop stalled past an election
 * timeout), and the early campaign after the transport lost the leader: surviving voters go
 * in id order, two ticks apart (the first at once), so they do not split the vote.
 */
import type { TimerHandle } from "../../lib/clock.ts";
import type { Message, NodeId } from "../core/index.ts";
import type { DriverContext } from "./context.ts";

export interface ElectionTimers {
  start(): void;
  stop(): void;
  /** See RaftDriver.peerLost. */
  peerLost(id: NodeId): void;
  /** Messages arrived: a vote from another replica cancels our early campaign (it campaigns already). */
  heard(messages: readonly Message[]): void;
}

export function createElectionTimers(ctx: DriverContext): ElectionTimers {
  const { node, ports, o, clock } = ctx;
  let ticker: TimerHandle | undefined;
  let lostTimer: TimerHandle | undefined;

  return {
    start() {
      let lastTickMs = clock.monotonicMs();
      ticker = clock.setInterval(() => {
        const nowMs = clock.monotonicMs();
        // A stalled event loop delays heartbeats: past an election timeout, followers campaign.
        if (nowMs - lastTickMs > o.tickMs * o.electionTicks) ports.logger?.warn({ message: "raft tick late", lateMs: Math.round(nowMs - lastTickMs - o.tickMs) });
        lastTickMs = nowMs;
        node.tick();
        ctx.schedule();
      }, o.tickMs);
    },
    stop() {
      clock.clear(ticker);
      ticker = undefined;
      clock.clear(lostTimer);
      lostTimer = undefined;
    },
    heard(messages) {
      // Another replica already campaigns for the lost leader's place: let it, do not split the vote.
      if (lostTimer !== undefined && messages.some((m) => (m.type === "pre-vote" || m.type === "vote") && m.from !== ports.id)) {
        clock.clear(lostTimer);
        lostTimer = undefined;
      }
    },
    peerLost(id) {
      if (!ctx.running || lostTimer !== undefined || ctx.soft.state !== "follower" || ctx.soft.lead !== id) return;
      const others = node.status().confState.voters.filter((v) => v !== id).sort((a, b) => a - b);
      const rank = others.indexOf(ports.id);
      if (!node.leaderUnreachable(id) || rank < 0) return;
      ctx.schedule();
      // Two ticks apart: under load a pre-vote can take tens of ms to be read by the next in line.
      const delayMs = rank * 2 * o.tickMs + ports.rng.int(0, Math.max(1, Math.floor(o.tickMs / 5)));
      lostTimer = clock.setTimeout(() => {
        lostTimer = undefined;
        if (!ctx.running || !node.campaignNow()) return;
        ports.logger?.info({ message: "connection to the leader lost: campaigning", leader: id, afterMs: delayMs });
        ctx.schedule();
      }, delayMs);
    },
  };
}
