/**
 * @module lib/clock
 * The Clock port: the one way the shells (Raft driver, agent, controller) read the time and
 * start timers, so that tests can run them on simulated time (lib/fake-clock.ts) and the
 * daemons on the real one (lib/system-clock.ts). Pure: only types here (property signatures, so the purity scan sees no timer call).
 */

/** A started timer; opaque to its user, handed back to clear(). */
export interface TimerHandle {
  readonly id: number;
}

export interface TimerOptions {
  /** The timer alone does not keep the process alive (Node's unref); no meaning on simulated time. */
  unref?: boolean;
}

export interface Clock {
  /** Wall-clock time, milliseconds since the epoch (what job times and deadlines are made of). */
  now(): number;
  /** Monotonic milliseconds from an arbitrary origin, sub-millisecond: for durations and late-tick checks. */
  monotonicMs(): number;
  /** Run `fn` once after `delayMs`. */
  setTimeout: (fn: () => void, delayMs: number, options?: TimerOptions) => TimerHandle;
  /** Run `fn` every `periodMs`, the first time one period from now. */
  setInterval: (fn: () => void, periodMs: number, options?: TimerOptions) => TimerHandle;
  /** Run `fn` after the current turn of the event loop (before any timer that is due later). */
  setImmediate: (fn: () => void) => TimerHandle;
  /** Cancel a timer of any of the three kinds; undefined or an already fired one is a no-op. */
  clear(timer: TimerHandle | undefined): void;
}
