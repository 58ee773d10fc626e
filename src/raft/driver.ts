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
 *
 * Time comes from ports.clock (lib/clock.ts): the system clock in the daemon, simulated time
 * in tests. This file assembles the pieces in driver/: proposals (group commit), conf-changes, reads
 * (ReadIndex), persist (full disk), apply, snapshots, election timers and the Ready loop.
 */
import type { TimerHandle } from "../lib/clock.ts";
import { systemClock } from "../lib/system-clock.ts";
import { createRaft } from "./core/index.ts";
import { DEFAULT_DRIVER_OPTIONS, type DriverOptions, type DriverPorts, type RaftDriver } from "./driver/api.ts";
import { createApplier } from "./driver/apply.ts";
import { createConfChanges } from "./driver/conf-changes.ts";
import { createContext } from "./driver/context.ts";
import { createElectionTimers } from "./driver/election-timers.ts";
import { createPersister } from "./driver/persist.ts";
import { createProposals } from "./driver/proposals.ts";
import { createReadyLoop } from "./driver/ready-loop.ts";
import { createReads } from "./driver/reads.ts";
import { createSnapshots } from "./driver/snapshots.ts";

export * from "./driver/api.ts";

export function createRaftDriver(ports: DriverPorts, options: Partial<DriverOptions> = {}): RaftDriver {
  const o: DriverOptions = { ...DEFAULT_DRIVER_OPTIONS, ...options };
  const clock = ports.clock ?? systemClock;
  const node = createRaft({ id: ports.id, electionTicks: o.electionTicks, heartbeatTicks: o.heartbeatTicks }, ports.storage, ports.rng);
  let scheduled: TimerHandle | undefined;
  const ctx = createContext(ports, o, clock, node, () => {
    if (scheduled !== undefined || !ctx.running) return;
    scheduled = clock.setImmediate(() => {
      scheduled = undefined;
      turn();
    });
  });
  const persister = createPersister(ctx);
  const proposals = createProposals(ctx, persister.admit);
  const changes = createConfChanges(ctx, proposals.flush);
  const reads = createReads(ctx);
  const applier = createApplier(ctx, proposals);
  const snapshots = createSnapshots(ctx);
  const timers = createElectionTimers(ctx);

  function stop(): void {
    ctx.running = false;
    ctx.serving = false;
    timers.stop();
    persister.stop();
    clock.clear(scheduled);
    scheduled = undefined;
    changes.failAll("controller stopping");
    proposals.failAll("controller stopping", "controller stopping");
    reads.failAll("controller stopping");
  }

  const turn = createReadyLoop(ctx, { proposals, changes, reads, persister, applier, snapshots, stop });
  if (ctx.snapIndex > 0) ports.restore(ports.storage.snapshot());

  return {
    propose: proposals.propose,
    readBarrier: reads.readBarrier,
    changeMembership: changes.changeMembership,
    receive(messages) {
      if (!ctx.running) return;
      timers.heard(messages);
      for (const m of messages) if (m.to === ports.id) node.step(m);
      ctx.schedule();
    },
    peerLost: timers.peerLost,
    start() {
      ctx.running = true;
      timers.start();
      ctx.schedule();
    },
    stop,
    isServing: () => ctx.serving,
    applyFailures: applier.failures,
    leader: () => ctx.soft.lead,
    status: () => node.status(),
  };
}
