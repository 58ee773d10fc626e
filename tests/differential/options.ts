/**
 * @module tests/differential/options
 * How a differential run is sized and where it reports, shared by the vitest project and
 * soak.ts: a FIXED budget of seeds in CI (SPUR_DIFFERENTIAL_CASES overrides the count,
 * SPUR_DIFFERENTIAL_SEED the first seed: one seed and count 1 replays one case).
 */
import { resolve } from "node:path";

/** Seeds CI runs: sized to keep the step within about 5 minutes on a 2-core machine (docs/differential.md). */
export const CI_CASES = 60;
export const CI_FIRST_SEED = 1;
/** Cases run at once (each runs on both sides at once). */
export const PARALLEL = 3;
/** Shrinking tries per failing case. */
export const SHRINK_TRIES = 16;

export const REPORT_PATH = process.env.SPUR_DIFFERENTIAL_REPORT ?? resolve(__dirname, "../../reports/differential.json");

export interface Budget {
  first: number;
  count: number;
}

/** The seeds of a run: [first, first + count). */
export const seedsOf = (b: Budget): number[] => Array.from({ length: b.count }, (_, i) => b.first + i);

export function envBudget(): Budget {
  const seed = process.env.SPUR_DIFFERENTIAL_SEED;
  const cases = process.env.SPUR_DIFFERENTIAL_CASES;
  const first = seed !== undefined && seed !== "" ? Number(seed) : CI_FIRST_SEED;
  // a seed given alone replays that one case
  const count = cases !== undefined && cases !== "" ? Number(cases) : seed !== undefined && seed !== "" ? 1 : CI_CASES;
  return { first, count };
}
