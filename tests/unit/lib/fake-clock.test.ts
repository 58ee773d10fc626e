/**
 * @module tests/unit/lib/fake-clock
 * Simulated time: timers fire in due order with ties in start order, intervals once per
 * period, clear() cancels, and a seeded random schedule replays the same firing order.
 */
import { describe, expect, it } from "vitest";
import { createFakeClock } from "../../../src/lib/fake-clock.ts";
import { createRng } from "../../../src/lib/rng.ts";

describe("fake clock", () => {
  it("fires due timers in time order, ties in start order, and moves now() to each due time", () => {
    const c = createFakeClock(1000);
    const fired: string[] = [];
    c.setTimeout(() => fired.push(`b@${c.now()}`), 20);
    c.setTimeout(() => fired.push(`a@${c.now()}`), 10);
    c.setTimeout(() => fired.push(`c@${c.now()}`), 20);
    c.setImmediate(() => fired.push(`i@${c.now()}`));
    c.advance(15);
    expect(fired).toEqual(["i@1000", "a@1010"]);
    expect(c.now()).toBe(1015);
    c.advance(5);
    expect(fired).toEqual(["i@1000", "a@1010", "b@1020", "c@1020"]);
    expect(c.monotonicMs()).toBe(20);
    expect(c.pending()).toBe(0);
  });

  it("fires a timer started by a firing timer in the same advance when it falls due", () => {
    const c = createFakeClock(0);
    const fired: number[] = [];
    c.setTimeout(() => {
      fired.push(c.now());
      c.setTimeout(() => fired.push(c.now()), 5);
      c.setImmediate(() => fired.push(-c.now()));
    }, 10);
    c.advance(20);
    expect(fired).toEqual([10, -10, 15]);
  });

  it("intervals fire once per period; clear() stops them and cancels timeouts", () => {
    const c = createFakeClock(0);
    let ticks = 0;
    const iv = c.setInterval(() => ticks++, 10);
    const t = c.setTimeout(() => {
      throw new Error("cleared timer fired");
    }, 25);
    c.clear(t);
    c.advance(35);
    expect(ticks).toBe(3);
    c.clear(iv);
    c.advance(100);
    expect(ticks).toBe(3);
    c.clear(undefined);
    expect(c.pending()).toBe(0);
  });

  it("step() fires exactly one timer and says when none is left", () => {
    const c = createFakeClock(0);
    const fired: number[] = [];
    c.setTimeout(() => fired.push(1), 7);
    c.setTimeout(() => fired.push(2), 7);
    expect(c.nextDueMs()).toBe(7);
    expect(c.step()).toBe(true);
    expect(fired).toEqual([1]);
    expect(c.step()).toBe(true);
    expect(c.step()).toBe(false);
    expect(c.now()).toBe(7);
  });

  it("refuses to move backwards", () => {
    expect(() => createFakeClock(0).advance(-1)).toThrow(/only moves forward/);
  });

  it("a random schedule replays the same order from the same seed, and respects due order", () => {
    const seed = Number(process.env.SEED ?? 42);
    const run = () => {
      const rng = createRng(seed);
      const c = createFakeClock(0);
      const order: string[] = [];
      for (let i = 0; i < 200; i++) {
        const delay = rng.int(0, 50);
        const handle = c.setTimeout(() => order.push(`${i}@${c.now()}`), delay);
        if (rng.int(0, 9) === 0) c.clear(handle);
      }
      while (c.step()) {
        // all fire
      }
      return order;
    };
    const first = run();
    expect(run(), `SEED=${seed}`).toEqual(first);
    const times = first.map((s) => Number(s.split("@")[1]));
    expect(times, `SEED=${seed}`).toEqual([...times].sort((a, b) => a - b));
  });
});
