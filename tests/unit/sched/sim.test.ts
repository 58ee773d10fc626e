/**
 * The simulator: SWF parsing (header machine size, -1 fields, skipped
 * records), the synthetic generator's determinism and offered load, and a
 * seeded replay where EASY backfill must beat FCFS on wait and slowdown
 * while both replay every job. SEED=<n> replays one workload.
 */
import { describe, expect, it } from "vitest";
import { parseSwf } from "../../../src/sched/sim/swf.ts";
import { syntheticWorkload } from "../../../src/sched/sim/synthetic.ts";
import { replay } from "../../../src/sched/sim/replay.ts";
import { createRng } from "../../../src/lib/rng.ts";

const SWF = `; Version: 2
; MaxNodes: 8
; MaxProcs: 16
1 0 -1 100 4 -1 -1 4 200 -1 1 3 -1 -1 0 -1 -1 -1
2 5 -1 50 -1 -1 -1 2 -1 -1 1 4 -1 -1 0 -1 -1 -1
3 7 -1 -1 2 -1 -1 2 -1 -1 0 4 -1 -1 0 -1 -1 -1
4 3 -1 10 0 -1 -1 -1 -1 -1 0 4 -1 -1 0 -1 -1 -1
`;

describe("SWF reader", () => {
  it("keeps replayable records, sorted by submit time, with the header's machine size", () => {
    const w = parseSwf(SWF);
    expect(w.maxProcs).toBe(16);
    expect(w.skipped).toBe(2);
    expect(w.jobs.map((j) => [j.id, j.submitSec, j.runSec, j.procs, j.reqTimeSec, j.user])).toEqual([
      [1, 0, 100, 4, 200, 3],
      [2, 5, 50, 2, 50, 4],
    ]);
  });
});

describe("replay", () => {
  const seed = Number(process.env.SEED ?? 7);
  it(`EASY backfill beats FCFS on wait and bounded slowdown (SEED=${seed})`, { timeout: 120_000 }, () => {
    const jobs = syntheticWorkload(createRng(seed), { jobs: 250, procs: 32, load: 0.8 });
    expect(syntheticWorkload(createRng(seed), { jobs: 250, procs: 32, load: 0.8 })).toEqual(jobs);
    const fcfs = replay(jobs, { nodes: 32, cpusPerNode: 1 }, { scheduler: "fcfs" });
    const easy = replay(jobs, { nodes: 32, cpusPerNode: 1 }, { scheduler: "backfill" });
    for (const r of [fcfs, easy]) {
      expect(r.jobs).toBe(250);
      expect(r.utilization).toBeGreaterThan(0);
      expect(r.utilization).toBeLessThanOrEqual(1);
      expect(r.meanBoundedSlowdown).toBeGreaterThanOrEqual(1);
    }
    expect(fcfs.backfilled).toBe(0);
    expect(easy.backfilled).toBeGreaterThan(0);
    expect(easy.meanWaitSec).toBeLessThan(fcfs.meanWaitSec);
    expect(easy.meanBoundedSlowdown).toBeLessThan(fcfs.meanBoundedSlowdown);
  });

  it("replays with several processors per node (jobs spread over nodes)", () => {
    const jobs = syntheticWorkload(createRng(3), { jobs: 60, procs: 32, load: 0.6 });
    const r = replay(jobs, { nodes: 8, cpusPerNode: 4 }, { scheduler: "backfill" });
    expect(r.jobs).toBe(60);
  });
});
