/**
 * @module ctld/idle-gc
 * A full garbage collection once the controller goes quiet after a burst of commands.
 * Filling the queue leaves garbage (decoded requests, answers, log texts) that the runtime's
 * own collector frees only over the next seconds and partly, so the process stays larger
 * than its state: a full collection once the burst is over gives the pages back (issue 16:
 * with 10k queued jobs, `bun bench/scale/mem-ab.ts`). It runs only when no command has been
 * applied for a while, and only after enough of them, so a busy controller never pays for it
 * and a quiet one pays once (a full collection costs ~5 ms at 10k jobs, ~60-90 ms at 100k).
 * Failure policy: none; the collection is an optimisation, it never changes state.
 */
import type { Clock, TimerHandle } from "../lib/clock.ts";

export interface IdleGcOptions {
  clock: Clock;
  /** The count of commands applied so far (state.appliedIndex): its movement is the activity watched. */
  appliedIndex: () => number;
  /** The full collection (the role passes `Bun.gc(true)`). */
  collect: () => void;
  /** Commands applied since the last collection before another is worth it. */
  minCommands?: number;
  /** Quiet time, no command applied, before collecting. */
  idleMs?: number;
  /** How often the applied count is looked at. */
  checkMs?: number;
}

export const IDLE_GC_MIN_COMMANDS = 1000;
export const IDLE_GC_IDLE_MS = 2000;

/** Starts the watcher; returns its stop. */
export function startIdleGc(opts: IdleGcOptions): () => void {
  const minCommands = opts.minCommands ?? IDLE_GC_MIN_COMMANDS;
  const idleMs = opts.idleMs ?? IDLE_GC_IDLE_MS;
  // From 0, not the count at start: a long replay's garbage is collected at the first quiet spell too.
  let collectedAt = 0;
  let seen = opts.appliedIndex();
  let quietSinceMs = opts.clock.monotonicMs();
  const timer: TimerHandle = opts.clock.setInterval(() => {
    const applied = opts.appliedIndex();
    const nowMs = opts.clock.monotonicMs();
    if (applied !== seen) {
      seen = applied;
      quietSinceMs = nowMs;
      return;
    }
    if (applied - collectedAt < minCommands || nowMs - quietSinceMs < idleMs) return;
    collectedAt = applied;
    opts.collect();
  }, opts.checkMs ?? 500, { unref: true });
  return () => opts.clock.clear(timer);
}
