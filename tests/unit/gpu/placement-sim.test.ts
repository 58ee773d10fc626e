/**
 * Seeded placement simulation (the bench's, smaller): Spur's placement must put
 * multi-GPU jobs on a best-connected set and gangs under the lowest switch at
 * least 95% of the time, and never do worse than count-only first fit; on
 * two-socket nodes (8 CPUs per GPU) GPU jobs get their CPUs on their GPUs'
 * sockets at least 95% of the time.
 * SEED=n replays one seed.
 */
import { describe, expect, it } from "vitest";
import { firstFitPlacer, runPlacementSim, simCluster, simMigCluster, simMigTrace, simTrace, spurPlacer } from "../../../src/sched/plan/gpu-placement-sim.ts";

const seeds = process.env.SEED ? [Number(process.env.SEED)] : [1, 2, 3];

describe("placement simulation", () => {
  for (const seed of seeds) {
    it(`seed ${seed}: clique and switch choices are optimal, first fit is not always`, () => {
      const cluster = simCluster(16);
      const trace = simTrace(seed, 600, 16 / 11);
      const noClock = () => 0;
      const spur = runPlacementSim(cluster, trace, spurPlacer, noClock);
      const first = runPlacementSim(cluster, trace, firstFitPlacer, noClock);
      const share = (a: number, b: number) => (b === 0 ? 1 : a / b);
      const msg = `SEED=${seed}`;
      expect(spur.placed, msg).toBe(trace.length);
      expect(spur.multiGpuJobs, msg).toBeGreaterThan(100);
      expect(spur.multiNodeJobs, msg).toBeGreaterThan(10);
      expect(share(spur.cliqueOptimal, spur.multiGpuJobs), msg).toBeGreaterThanOrEqual(0.95);
      expect(share(spur.switchOptimal, spur.multiNodeJobs), msg).toBeGreaterThanOrEqual(0.95);
      expect(share(first.cliqueOptimal, first.multiGpuJobs), msg).toBeLessThan(share(spur.cliqueOptimal, spur.multiGpuJobs));
    });
  }

  for (const seed of seeds) {
    it(`seed ${seed}: on two-socket nodes GPU jobs get CPUs beside their GPUs, without losing link quality`, () => {
      const trace = simTrace(seed, 600, 16 / 11);
      const noClock = () => 0;
      const plain = runPlacementSim(simCluster(16), trace, spurPlacer, noClock);
      const numa = runPlacementSim(simCluster(16, 2), trace, spurPlacer, noClock);
      const msg = `SEED=${seed}`;
      expect(numa.placed, msg).toBe(trace.length);
      expect(numa.socketScored, msg).toBeGreaterThan(300);
      expect(numa.numaLocal / numa.socketScored, msg).toBeGreaterThanOrEqual(0.95);
      expect(numa.cliqueOptimal / numa.multiGpuJobs, msg).toBeGreaterThanOrEqual(0.95);
      expect(plain.socketScored, msg).toBe(0); // one-socket nodes: nothing to score
    });
  }
});

describe("MIG placement simulation", () => {
  it("gives every typed job only GPUs of its type (SEED=n replays)", () => {
    const seed = Number(process.env.SEED ?? 7);
    const r = runPlacementSim(simMigCluster(8), simMigTrace(seed, 400, 2), spurPlacer, () => 0);
    expect(r.placed, `seed ${seed}`).toBe(400);
    expect(r.typeExact, `seed ${seed}`).toBe(r.typedJobs);
    expect(r.typedJobs, `seed ${seed}`).toBeGreaterThan(250);
  });
});
