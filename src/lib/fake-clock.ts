/**
 * @module lib/fake-clock
 * Simulated time for tests and simulations: nothing moves until advance() is called. Timers
 * fire in time order; ties (same due time) fire in the order they were started, so a run is
 * the same every time. An immediate is a timer due now: it fires on the next advance, even
 * advance(0). Intervals fire once per period they were due (no catch-up burst is skipped).
 */
import { assert } from "./assert.ts";
import type { Clock, TimerHandle } from "./clock.ts";

interface FakeTimer extends TimerHandle {
  dueMs: number;
  /** Start order: breaks ties between timers due at the same time. */
  seq: number;
  periodMs: number | undefined;
  fn: () => void;
}

export interface FakeClock extends Clock {
  /** Move time forward by `ms`, firing every timer that falls due on the way, in order. */
  advance(ms: number): void;
  /**
   * Fire the one next timer (moving time to its due time); false when none is pending. A test
   * that awaits promises settles them between steps, as the event loop does between tasks.
   */
  step(): boolean;
  /** When the next timer is due (simulated ms since the epoch), or undefined when none is pending. */
  nextDueMs(): number | undefined;
  /** Timers started and not yet fired or cleared. */
  pending(): number;
}

/** A simulated clock whose wall time starts at `startMs` (epoch ms; fixed, so runs replay). */
export function createFakeClock(startMs = 1_700_000_000_000): FakeClock {
  let nowMs = startMs;
  let seq = 0;
  const timers = new Map<number, FakeTimer>();

  const add = (fn: () => void, delayMs: number, periodMs: number | undefined): TimerHandle => {
    assert(Number.isFinite(delayMs), `timer delay ${delayMs} is a number`);
    const t: FakeTimer = { id: ++seq, seq, dueMs: nowMs + Math.max(0, delayMs), periodMs, fn };
    timers.set(t.id, t);
    return t;
  };

  /** The earliest timer due at or before `limitMs`, ties by start order. */
  const earliest = (limitMs: number): FakeTimer | undefined => {
    let best: FakeTimer | undefined;
    for (const t of timers.values()) {
      if (t.dueMs > limitMs) continue;
      if (best === undefined || t.dueMs < best.dueMs || (t.dueMs === best.dueMs && t.seq < best.seq)) best = t;
    }
    return best;
  };

  const fire = (t: FakeTimer): void => {
    assert(t.dueMs >= nowMs, "a timer never fires in the past");
    nowMs = t.dueMs;
    if (t.periodMs === undefined) timers.delete(t.id);
    else {
      // Re-armed before it runs, with a fresh sequence: it goes after timers started meanwhile.
      t.dueMs += Math.max(1, t.periodMs);
      t.seq = ++seq;
    }
    t.fn();
  };

  const clock: FakeClock = {
    now: () => nowMs,
    monotonicMs: () => nowMs - startMs,
    setTimeout: (fn, delayMs) => add(fn, delayMs, undefined),
    setInterval: (fn, periodMs) => add(fn, periodMs, periodMs),
    setImmediate: (fn) => add(fn, 0, undefined),
    clear(timer) {
      if (timer !== undefined) timers.delete(timer.id);
    },
    advance(ms) {
      assert(ms >= 0, `advance by ${ms} ms: time only moves forward`);
      const targetMs = nowMs + ms;
      for (let t = earliest(targetMs); t !== undefined; t = earliest(targetMs)) fire(t);
      nowMs = targetMs;
    },
    step() {
      const next = earliest(Number.POSITIVE_INFINITY);
      if (next === undefined) return false;
      fire(next);
      return true;
    },
    nextDueMs() {
      let due: number | undefined;
      for (const t of timers.values()) if (due === undefined || t.dueMs < due) due = t.dueMs;
      return due;
    },
    pending: () => timers.size,
  };
  return clock;
}
