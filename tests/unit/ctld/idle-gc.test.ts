/**
 * The idle collection (ctld/idle-gc.ts): once after a burst of commands, only when the
 * applied count has stood still for the quiet time, never while commands keep coming.
 */
import { describe, expect, it } from "vitest";
import { startIdleGc } from "../../../src/ctld/idle-gc.ts";
import { createFakeClock } from "../../../src/lib/fake-clock.ts";

function setUp(applied = 0) {
  const clock = createFakeClock();
  const box = { applied, collections: 0 };
  const stop = startIdleGc({ clock, appliedIndex: () => box.applied, collect: () => box.collections++, minCommands: 100, idleMs: 2000, checkMs: 500 });
  return { clock, box, stop };
}

describe("idle-gc", () => {
  it("collects once, after the quiet time that follows a burst", () => {
    const { clock, box } = setUp();
    box.applied = 150;
    clock.advance(500); // the burst is seen
    clock.advance(1500);
    expect(box.collections).toBe(0);
    clock.advance(500);
    expect(box.collections).toBe(1);
    clock.advance(60_000);
    expect(box.collections).toBe(1);
  });

  it("never collects while commands keep being applied", () => {
    const { clock, box } = setUp();
    for (let i = 0; i < 100; i++) {
      box.applied += 10;
      clock.advance(500);
    }
    expect(box.collections).toBe(0);
  });

  it("waits for enough commands: a trickle below the threshold is left to the runtime", () => {
    const { clock, box } = setUp();
    box.applied = 99;
    clock.advance(10_000);
    expect(box.collections).toBe(0);
    box.applied = 100;
    clock.advance(10_000);
    expect(box.collections).toBe(1);
    box.applied = 150;
    clock.advance(10_000);
    expect(box.collections).toBe(1);
  });

  it("counts a start-up replay as a burst", () => {
    const { clock, box } = setUp(5000);
    clock.advance(2500);
    expect(box.collections).toBe(1);
  });

  it("stops", () => {
    const { clock, box, stop } = setUp();
    box.applied = 500;
    stop();
    clock.advance(10_000);
    expect(box.collections).toBe(0);
    expect(clock.pending()).toBe(0);
  });
});
