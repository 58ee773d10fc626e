/**
 * @module raft/driver/snapshots
 * Snapshots: installing one sent by the leader, and taking one here once about
 * snapshotEveryEntries were applied since the last (a threshold drawn per replica, so replicas
 * do not all stall at once), or as many as the state weighs when that is more (ports.snapshotWeight),
 * then compacting the log to trailingEntries behind it. Built off
 * this thread when the application can (takeSnapshotAsync); otherwise a leader first hands
 * leadership to a caught-up follower. Failure policy: no room for the image keeps the log as
 * it is and tries again at a later entry; a failed background build is logged and retried.
 */
import { isDiskFull } from "../../lib/store-full.ts";
import type { ConfState, Snapshot } from "../core/index.ts";
import { LEADER_SNAPSHOT_FACTOR, type BuiltSnapshot } from "./api.ts";
import type { DriverContext } from "./context.ts";

export interface Snapshots {
  /** Replace the application's state with the leader's snapshot (already persisted). */
  install(snapshot: Snapshot): void;
  /** After each Ready: take a snapshot if one is due and none is being built. */
  maybeTake(): void;
}

export function createSnapshots(ctx: DriverContext): Snapshots {
  const { ports, o, clock, node } = ctx;
  const drawThreshold = (): number => o.snapshotEveryEntries + ports.rng.int(0, Math.floor(o.snapshotEveryEntries / 2));
  /** Entries applied past the last snapshot before the next one (jittered per replica). */
  let due = drawThreshold();
  /** A snapshot being built off this thread (at most one at a time). */
  let inFlight = false;
  /**
   * The state's weight when the last snapshot was taken or installed: the next waits for that
   * many entries. The weight then, not now: a state that grows by one job an entry would
   * otherwise always weigh as much as the entries since, and never be due.
   */
  let weightAtSnap = 0;

  /**
   * Write the image at `index` (or only the name of the file it is in) and compact the log
   * behind it (this thread's only cost of an async snapshot).
   */
  function record(index: number, confState: ConfState, built: BuiltSnapshot, startedMs: number, askedAtMs: number): void {
    const s = ports.storage;
    if ("file" in built && s.recordSnapshotFile === undefined) throw new Error(`a snapshot in ${built.file} for a store without image files`);
    let storeMs = 0;
    let storeCpuMs = 0;
    try {
      // Not fsynced (durable false): nothing waits on it, and a crash that loses it loses the
      // compaction with it (the store keeps order): the previous snapshot and the log remain.
      // The next Ready's fsync makes it durable.
      const storing = clock.monotonicMs();
      const cpu = process.cpuUsage();
      s.atomically(() => {
        if ("file" in built) s.recordSnapshotFile?.(index, confState, built.file);
        else s.createSnapshot(index, confState, built.image);
        s.compact(Math.max(ctx.snapIndex, index - o.trailingEntries));
      }, false);
      storeMs = clock.monotonicMs() - storing;
      const used = process.cpuUsage(cpu);
      storeCpuMs = (used.user + used.system) / 1000;
    } catch (error) {
      // No room for the image: keep the log as it is and try at a later entry.
      if (!isDiskFull(error)) throw error;
      ctx.diskFull.failed(error);
      return;
    }
    ctx.snapIndex = index;
    due = drawThreshold();
    weightAtSnap = ports.snapshotWeight?.() ?? 0;
    const nowMs = clock.monotonicMs();
    ports.logger?.info({
      message: "snapshot taken", index, bytes: built.bytes,
      // blockMs: this thread's time (all of it, without a worker); ms: from asking to written.
      blockMs: Math.round((nowMs - startedMs) * 10) / 10, storeMs: Math.round(storeMs * 10) / 10, storeCpuMs: Math.round(storeCpuMs * 10) / 10, ms: Math.round(nowMs - askedAtMs), encodeMs: Math.round(built.encodeMs),
    });
  }

  function inBackground(building: Promise<BuiltSnapshot>, index: number, confState: ConfState): void {
    inFlight = true;
    const askedAtMs = clock.monotonicMs();
    building.then(
      (built) => {
        inFlight = false;
        // Stopped, or a newer snapshot came from the leader meanwhile: this one is of no use.
        if (!ctx.running || index <= ctx.snapIndex) return;
        record(index, confState, built, clock.monotonicMs(), askedAtMs);
        ctx.schedule();
      },
      (error: unknown) => {
        inFlight = false;
        ports.logger?.warn({ message: "snapshot not taken", index, error: String((error as Error).message ?? error) });
      },
    );
  }

  /** Ask the most caught-up follower to take over; true when a transfer is under way. */
  function handOver(): boolean {
    const st = node.status();
    if (st.leadTransferee !== 0) return true;
    let best = 0;
    let bestMatch = -1;
    for (const [id, pr] of st.progress) {
      if (id === ports.id || pr.isLearner || !pr.recentActive) continue;
      if (pr.match > bestMatch) [best, bestMatch] = [id, pr.match];
    }
    if (best === 0 || bestMatch < st.commit) return false;
    ports.logger?.info({ message: "handing leadership over before a snapshot", to: best });
    return node.transferLeader(best).ok;
  }

  return {
    install(snapshot) {
      const startedMs = clock.monotonicMs();
      ports.restore(snapshot);
      ctx.appliedIndex = snapshot.meta.index;
      ctx.snapIndex = ctx.appliedIndex;
      weightAtSnap = ports.snapshotWeight?.() ?? 0;
      ports.logger?.info({ message: "snapshot installed from the leader", index: ctx.appliedIndex, bytes: snapshot.data.length, ms: Math.round(clock.monotonicMs() - startedMs) });
    },
    maybeTake() {
      const applied = ctx.appliedIndex;
      if (inFlight || applied - ctx.snapIndex < due) return;
      // A large state waits for proportionally more entries, with this replica's jitter factor.
      if (weightAtSnap > o.snapshotEveryEntries && applied - ctx.snapIndex < Math.floor((weightAtSnap * due) / o.snapshotEveryEntries)) return;
      const st = node.status();
      if (st.applied < st.confIndex || st.applied !== applied) return;
      const building = ports.takeSnapshotAsync?.(applied);
      if (building !== undefined) return inBackground(building, applied, st.confState);
      // Taking a snapshot here stalls this thread (seconds at 100k jobs) and with it the
      // leader's heartbeats. So a leader due for one first hands leadership to a caught-up
      // follower (then snapshots as a follower); only without one does it wait for a much
      // longer log and take the stall.
      if (ctx.soft.state === "leader" && handOver()) return;
      if (ctx.soft.state === "leader" && applied - ctx.snapIndex < due * LEADER_SNAPSHOT_FACTOR) return;
      const startedMs = clock.monotonicMs();
      const image = ports.takeSnapshot(applied);
      record(applied, st.confState, { image, bytes: image.length, encodeMs: 0 }, startedMs, startedMs);
    },
  };
}
