/**
 * @module raft/driver/ready-loop
 * One Ready turn, in the order the core requires: queued proposals in -> the leader's appends
 * out (followers write in parallel with the leader's fsync) -> persist -> send -> install a
 * snapshot -> apply -> release reads -> role change -> advance -> membership results ->
 * snapshot if due. A turn runs on the clock's next immediate, once however often asked.
 * Failure policy: a broken invariant (storage, apply) stops the driver: stopping is safer
 * than serving wrong data.
 */
import type { Ready, SoftState } from "../core/index.ts";
import type { Applier } from "./apply.ts";
import type { ConfChanges } from "./conf-changes.ts";
import type { DriverContext } from "./context.ts";
import type { Persister } from "./persist.ts";
import type { Proposals } from "./proposals.ts";
import type { Reads } from "./reads.ts";
import type { Snapshots } from "./snapshots.ts";

export interface ReadyParts {
  proposals: Proposals;
  changes: ConfChanges;
  reads: Reads;
  persister: Persister;
  applier: Applier;
  snapshots: Snapshots;
  /** Stop the driver (on a broken invariant). */
  stop(): void;
}

/** The turn itself: call it from the clock's immediate that ctx.schedule() starts. */
export function createReadyLoop(ctx: DriverContext, parts: ReadyParts): () => void {
  const { node, ports } = ctx;
  const { proposals, changes, reads, persister, applier, snapshots } = parts;
  /** As leader: the index of this term's first entry; serving once applied reaches it. */
  let servingFrom = Number.POSITIVE_INFINITY;

  function changeSoft(next: SoftState): void {
    const wasLeader = ctx.soft.state === "leader";
    ports.logger?.info({ message: "raft role", role: next.state, leader: next.lead, term: node.basicStatus().term });
    ctx.soft = next;
    if (!wasLeader && next.state === "leader") servingFrom = node.status().lastIndex;
    if (wasLeader && next.state !== "leader") {
      servingFrom = Number.POSITIVE_INFINITY;
      changes.failAll("leadership lost before the request was committed");
      proposals.failAll("leadership lost before the request was proposed", "leadership lost before the request was committed");
      reads.failAll("leadership lost before the read was confirmed");
      if (ctx.serving) {
        ctx.serving = false;
        ports.onServing(false);
      }
    }
  }

  function afterPersist(rd: Ready): void {
    if (rd.messages.length > 0) ports.send(rd.messages);
    if (rd.snapshot !== undefined) snapshots.install(rd.snapshot);
    for (const e of rd.committedEntries) applier.apply(e);
    for (const rs of rd.readStates) reads.confirm(rs.context, rs.index);
    reads.release();
    if (rd.softState !== undefined) changeSoft(rd.softState);
    if (ctx.soft.state === "leader" && !ctx.serving && ctx.appliedIndex >= servingFrom) {
      ctx.serving = true;
      ports.onServing(true);
    }
    node.advance(rd);
    // advance() applied the conf changes to the core: report them with the membership they made.
    const applied = rd.committedEntries.filter((e) => e.type === "conf-change");
    if (applied.length > 0) changes.settle(applied, node.status().confState);
    snapshots.maybeTake();
  }

  function turn(): void {
    proposals.flush();
    const held = persister.retryHeld();
    if (held === false) return;
    if (held !== undefined) afterPersist(held);
    while (node.hasReady()) {
      const rd = node.ready();
      // The leader's appends leave before its own fsync: followers write in parallel with it.
      if (rd.messagesBeforePersist.length > 0) ports.send(rd.messagesBeforePersist);
      // Refused: the Ready stays held, its messages (acks, votes) unsent and nothing of it applied.
      if (!persister.persist(rd)) return;
      afterPersist(rd);
    }
  }

  return () => {
    if (!ctx.running) return;
    try {
      turn();
    } catch (error) {
      ports.logger?.warn({ message: "raft driver stopped on an invariant failure", error: String((error as Error).stack ?? error) });
      parts.stop();
      throw error;
    }
  };
}
