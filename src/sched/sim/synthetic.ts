/**
 * @module sched/sim/synthetic
 * A seeded synthetic workload in the spirit of the Lublin-Feitelson model:
 * Poisson arrivals tuned to a target offered load, sizes mostly small with a
 * share of power-of-two parallel jobs up to the whole machine, log-uniform
 * runtimes from seconds to hours, and user estimates that overstate the
 * runtime (the slack backfill lives on). Same seed, same workload.
 */
import type { Rng } from "../../lib/rng.ts";
import type { WorkloadJob } from "./swf.ts";

export interface SyntheticOptions {
  jobs: number;
  /** Processors in the machine. */
  procs: number;
  /** Offered load: sum(procs x runtime) / (machine procs x span); 0.9 keeps a queue. */
  load: number;
}

function size(rng: Rng, procs: number): number {
  const roll = rng.next();
  if (roll < 0.35) return 1;
  const maxLog = Math.max(1, Math.floor(Math.log2(procs)));
  if (roll < 0.85) return 2 ** rng.int(1, maxLog);
  return Math.min(procs, rng.int(2, procs));
}

export function syntheticWorkload(rng: Rng, o: SyntheticOptions): WorkloadJob[] {
  const shapes = Array.from({ length: o.jobs }, () => {
    const procs = size(rng, o.procs);
    const runSec = Math.max(1, Math.round(Math.exp(Math.log(10) + rng.next() * (Math.log(36_000) - Math.log(10)))));
    const slack = 1 + rng.next() * 4;
    return { procs, runSec, reqTimeSec: Math.ceil((runSec * slack) / 60) * 60 };
  });
  const work = shapes.reduce((s, j) => s + j.procs * j.runSec, 0);
  const spanSec = work / (o.procs * Math.max(0.05, o.load));
  const meanGapSec = spanSec / Math.max(1, o.jobs);
  let t = 0;
  return shapes.map((s, i) => {
    t += -Math.log(1 - rng.next()) * meanGapSec;
    return { id: i + 1, submitSec: Math.round(t), user: rng.int(1, 20), ...s };
  });
}
