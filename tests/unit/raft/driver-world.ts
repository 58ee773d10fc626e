/**
 * @module tests/unit/raft/driver-world
 * Simulated time for tests of the async Raft driver: one fake clock shared by every replica
 * and by the in-memory network (each message delayed 1..3 ms, drawn from the seed), so a run
 * is the same every time and no test waits on the wall clock. SEED=n replays a run; the seed
 * is printed when a test fails.
 */
import { onTestFailed } from "vitest";
import { type FakeClock, createFakeClock } from "../../../src/lib/fake-clock.ts";
import { type Rng, createRng } from "../../../src/lib/rng.ts";

export interface World {
  seed: number;
  clock: FakeClock;
  rng: Rng;
  /** Run simulated time until `cond` holds; throws (with the seed) past `limitMs` simulated ms. */
  until(cond: () => boolean, limitMs?: number): Promise<void>;
  /** Run simulated time until `p` settles, and return (or throw) what it settled with. */
  settle<T>(p: Promise<T>, limitMs?: number): Promise<T>;
  /** Run simulated time for `ms`. */
  runFor(ms: number): Promise<void>;
}

/** Let every promise continuation that is ready run (the event loop between two tasks). */
const drain = () => new Promise<void>((res) => setImmediate(res));

/** A world seeded from SEED, or from `defaultSeed` (fixed, so a plain run is reproducible too). */
export function createWorld(defaultSeed: number): World {
  const seed = Number(process.env.SEED ?? defaultSeed);
  onTestFailed(() => console.error(`driver world: replay with SEED=${seed}`));
  const clock = createFakeClock();
  const until = async (cond: () => boolean, limitMs = 30_000): Promise<void> => {
    const endMs = clock.now() + limitMs;
    for (;;) {
      await drain();
      if (cond()) return;
      if (clock.now() > endMs || !clock.step()) throw new Error(`condition not met within ${limitMs} simulated ms (SEED=${seed})`);
    }
  };
  return {
    seed, clock, rng: createRng(seed), until,
    async settle<T>(p: Promise<T>, limitMs?: number): Promise<T> {
      let done = false;
      const watched = p.finally(() => {
        done = true;
      });
      watched.catch(() => undefined);
      await until(() => done, limitMs);
      return watched;
    },
    async runFor(ms) {
      const endMs = clock.now() + ms;
      await until(() => clock.now() >= endMs || (clock.nextDueMs() ?? Number.POSITIVE_INFINITY) > endMs, ms + 1);
      clock.advance(Math.max(0, endMs - clock.now()));
      await drain();
    },
  };
}
