/**
 * @module tests/unit/raft/sim
 * Entry point of the seeded Raft cluster simulation (code in tests/sim/raft/). Each seed
 * runs 3 or 5 replicas through crashes, partitions, loss, duplication, reordering,
 * membership changes and client traffic, checking safety after every step and liveness
 * after healing. `SEED=n` replays one seed with its event transcript; `SEEDS=n` sets the
 * count (default sized to ~20 s here); `SEED_BASE=n` shifts the range.
 */
import { describe, expect, it } from "vitest";
import { type SimResult, runSeed } from "../../sim/raft/run.ts";

const envInt = (name: string): number | undefined => {
  const v = process.env[name];
  return v === undefined || v === "" ? undefined : Number(v);
};

const single = envInt("SEED");
const count = envInt("SEEDS") ?? 1500; // ~100-130 seeds/s under vitest here: 12-15 s
const base = envInt("SEED_BASE") ?? 1;
const BATCH = 100;

/** Run one seed; on failure replay it with tracing so the error carries the transcript. */
function runOrExplain(seed: number): SimResult {
  try {
    return runSeed(seed);
  } catch (first) {
    try {
      runSeed(seed, { trace: true });
    } catch (traced) {
      throw new Error(`${(traced as Error).message}\nreplay: SEED=${seed} bun --bun vitest run tests/unit/raft/sim.test.ts`);
    }
    throw first;
  }
}

describe("raft cluster simulation", () => {
  if (single !== undefined) {
    it(`SEED=${single}`, () => {
      const r = runOrExplain(single);
      console.log(JSON.stringify(r));
      expect(r.leaderAfterHealTicks).toBeGreaterThanOrEqual(0);
    });
    return;
  }
  for (let from = base; from < base + count; from += BATCH) {
    const to = Math.min(from + BATCH, base + count);
    it(`seeds ${from}..${to - 1}`, () => {
      let acked = 0;
      for (let seed = from; seed < to; seed++) acked += runOrExplain(seed).writesAcked;
      expect(acked).toBeGreaterThan(0); // the runs did real work
    });
  }
});
