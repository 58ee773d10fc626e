/**
 * @module tests/unit/rest/rng
 * A seeded generator for the REST fuzz suite (SEED=n replays a run).
 */
import { createRng as libRng } from "../../../src/lib/rng.ts";

export interface Rng {
  int(n: number): number;
  pick<T>(xs: readonly T[]): T;
}

export function createRng(seed: number): Rng {
  const r = libRng(seed);
  const int = (n: number) => Math.floor(r.next() * n);
  return { int, pick: (xs) => xs[int(xs.length)]! };
}
