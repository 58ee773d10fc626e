/** Per-user token buckets: burst, refill over time, independent users, bounded table. */
import { describe, expect, it } from "vitest";
import { createRateLimiter } from "../../../src/net/rest/rate-limit.ts";

describe("rate limiter", () => {
  it("allows a burst, refills at perSec, and keeps users apart", () => {
    const rl = createRateLimiter({ perSec: 2, burst: 3, usersMax: 2 });
    expect([1, 2, 3, 4].map(() => rl.take("a", 0))).toEqual([true, true, true, false]);
    expect(rl.take("b", 0)).toBe(true);
    expect(rl.take("a", 0.5)).toBe(true);
    expect(rl.take("a", 0.5)).toBe(false);
    rl.take("c", 1);
    expect(rl.size()).toBe(2);
  });
  it("is off when perSec is 0", () => {
    const rl = createRateLimiter({ perSec: 0, burst: 0 });
    expect(Array.from({ length: 100 }, () => rl.take("a", 0)).every(Boolean)).toBe(true);
  });
});
