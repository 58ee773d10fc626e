/**
 * The controller simulation in CI (issue 14 part 2). Seeds 1, 2, 3 ... run in order,
 * STEPS steps each, until SIM_BUDGET_MS of wall time is spent (at least SEEDS_MIN seeds,
 * at most SEEDS_MAX), so CI always runs a prefix of the same seed sequence and a slow
 * machine runs fewer, never flakes on time. `SEED=n` runs that seed alone (STEPS=m for
 * longer); a failure names its seed. Wall time decides only how many seeds run, never
 * what happens inside one: the simulation itself uses simulated time only.
 */
import { describe, expect, it } from "vitest";
import { runSeed, type SimStats } from "./run.ts";

const env = (name: string): number | undefined => (process.env[name] === undefined ? undefined : Number(process.env[name]));

const ONE = env("SEED");
const COUNTED = ["steps", "commands", "passes", "decisions", "staleRejected", "staleArrayTask", "jobs", "preemptions"] as const;
const STEPS = env("STEPS") ?? 120;
const BUDGET_MS = env("SIM_BUDGET_MS") ?? 15_000;
const SEEDS_MIN = env("SEEDS_MIN") ?? 25;
const SEEDS_MAX = env("SEEDS_MAX") ?? 2_000;

describe("controller simulation: stale scheduler decisions against user commands", () => {
  it(ONE === undefined ? `seeds from 1 within ${BUDGET_MS} ms, ${STEPS} steps each: apply never throws, invariants hold, replay is equal` : `SEED=${ONE}`, () => {
    const total: SimStats = { steps: 0, commands: 0, passes: 0, decisions: 0, staleRejected: 0, staleArrayTask: 0, jobs: 0, preemptions: 0 };
    const started = performance.now();
    let seeds = 0;
    for (let seed = ONE ?? 1; ; seed++) {
      const s = runSeed(seed, STEPS);
      seeds++;
      for (const k of COUNTED) total[k] += s[k];
      total.purged = (total.purged ?? 0) + (s.purged ?? 0);
      total.archivedAtSnapshot = Math.max(total.archivedAtSnapshot ?? 0, s.archivedAtSnapshot ?? 0);
      if (ONE !== undefined || seeds >= SEEDS_MAX) break;
      if (seeds >= SEEDS_MIN && performance.now() - started > BUDGET_MS) break;
    }
    console.info(`controller sim: ${seeds} seeds (1..${seeds}) in ${Math.round(performance.now() - started)} ms ${JSON.stringify(total)}`);
    // The run must actually exercise the race it is about.
    expect(total.decisions).toBeGreaterThan(0);
    if (ONE === undefined) {
      expect(total.staleRejected).toBeGreaterThan(0);
      expect(total.staleArrayTask).toBeGreaterThan(0);
      expect(total.preemptions).toBeGreaterThan(0);
      // Jobs were purged, and a restored replica got archive rows from a snapshot.
      expect(total.purged ?? 0).toBeGreaterThan(0);
      expect(total.archivedAtSnapshot ?? 0).toBeGreaterThan(0);
    }
  }, 180_000);
});
