/**
 * @module sched/acct/decay
 * PriorityDecayHalfLife's decay of usage: a second used `age` seconds ago counts 2^(-age/H).
 * A leaf module (imports nothing) shared by the fair tree and the limits over time.
 */

/** ∫ from start to end of 2^(-(now - t)/H) dt (plain seconds when H = 0). */
export function decayedSeconds(start: number, end: number, now: number, halfLifeSec: number): number {
  if (end <= start) return 0;
  if (halfLifeSec <= 0) return end - start;
  const k = Math.LN2 / halfLifeSec;
  return (Math.exp(-k * (now - end)) - Math.exp(-k * (now - start))) / k;
}
