/**
 * @module rest/rate-limit
 * Per-user token buckets (pure: the clock is an argument). Each user may make
 * `burst` requests at once and `perSec` a second on average; the table holds
 * at most `usersMax` users (the least recently seen is dropped first).
 */
export interface RateLimitConfig {
  perSec: number;
  burst: number;
  usersMax?: number;
}

interface Bucket {
  tokens: number;
  atSec: number;
}

export interface RateLimiter {
  /** True when `user` may make one more request at `nowSec` (and takes a token). */
  take(user: string, nowSec: number): boolean;
  size(): number;
}

export function createRateLimiter(cfg: RateLimitConfig): RateLimiter {
  const usersMax = cfg.usersMax ?? 10_000;
  const buckets = new Map<string, Bucket>();
  return {
    take(user, nowSec) {
      if (cfg.perSec <= 0) return true;
      let b = buckets.get(user);
      if (b === undefined) {
        if (buckets.size >= usersMax) {
          const oldest = buckets.keys().next().value;
          if (oldest !== undefined) buckets.delete(oldest);
        }
        b = { tokens: cfg.burst, atSec: nowSec };
      } else buckets.delete(user);
      buckets.set(user, b);
      b.tokens = Math.min(cfg.burst, b.tokens + Math.max(0, nowSec - b.atSec) * cfg.perSec);
      b.atSec = nowSec;
      if (b.tokens < 1) return false;
      b.tokens -= 1;
      return true;
    },
    size: () => buckets.size,
  };
}
