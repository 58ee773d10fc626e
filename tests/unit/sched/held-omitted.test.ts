/**
 * schedule()'s omitHeld (plan/held-jobs.ts: held jobs stay out of the queue and the result's
 * maps) against the reference, the same state scheduled with the held jobs queued like any
 * other: on seeded random states (two partitions, some tiered, dependencies, begin times,
 * deadlines, arrays, het jobs, held and released jobs, small bf_max_job_test and jobs-examined
 * budgets), over several passes whose starts are applied, the decisions, reservations, expired
 * and killed jobs are equal, and every pending job's reason and priority are the reference's
 * once a held job left out reads as its hold (heldReason) and priority 0.
 * A failure prints its seed; SEED=<n> replays one.
 */
import { describe, expect, it } from "vitest";
import { createRng, type Rng } from "../../../src/lib/rng.ts";
import { omittedConf, submitSome } from "./omitted-fixtures.ts";
import { schedule, type ScheduleResult } from "../../../src/sched/plan/schedule.ts";
import { heldReason } from "../../../src/sched/plan/eligibility.ts";
import { ROOT, cluster } from "./builders.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";

const SEEDS = process.env.SEED ? [Number(process.env.SEED)] : Array.from({ length: Number(process.env.SEEDS ?? 150) }, (_, i) => i + 1);

const conf = (rng: Rng): string => omittedConf(rng, "h", "PriorityWeightAge=1000\nPriorityWeightJobSize=1000");

/** Every pending job's reason and priority as the reference gives them, read from a result made with omitHeld. */
function expectSameAsQueued(state: ClusterState, fast: ScheduleResult, ref: ScheduleResult): number {
  expect(fast.decisions).toEqual(ref.decisions);
  expect(fast.reservations).toEqual(ref.reservations);
  expect(fast.expired).toEqual(ref.expired);
  expect(fast.invalidDeps).toEqual(ref.invalidDeps);
  expect(fast.stats.queueLength).toBe(ref.stats.queueLength);
  let omitted = 0;
  for (const job of state.jobs.values()) {
    const id = job.info.jobId;
    if (job.info.state !== "PENDING") continue;
    const held = job.info.priority === 0;
    if (held && !fast.reasons.has(id)) omitted++;
    expect([id, fast.reasons.get(id) ?? (held ? heldReason(job) : undefined)]).toEqual([id, ref.reasons.get(id)]);
    expect([id, fast.priorities.get(id) ?? (held ? 0 : undefined)]).toEqual([id, ref.priorities.get(id)]);
  }
  for (const id of fast.reasons.keys()) expect(ref.reasons.has(id)).toBe(true);
  expect(fast.priorities.size).toBeLessThanOrEqual(ref.priorities.size);
  return omitted;
}

describe("held jobs left out of the pass (omitHeld)", () => {
  it(`decide and read as with them queued (${SEEDS.length} seeds)`, { timeout: 120_000 }, () => {
    let omittedTotal = 0;
    for (const seed of SEEDS) {
      try {
        const rng = createRng(seed);
        const c = cluster(conf(rng));
        let now = 100;
        for (let pass = 0; pass < 5; pass++) {
          submitSome(c, rng, now, rng.int(2, 8), { hold: 0.4, begin: 0.1, beginWithin: 600 });
          // some held jobs are released (and so join the queue), some pending ones held
          for (const job of [...c.state.jobs.values()]) {
            if (job.info.state !== "PENDING" || rng.next() > 0.15) continue;
            const action = job.info.priority === 0 ? "release" : "hold";
            c.run({ v: 1, type: "updateJob", at: now, jobIds: [String(job.info.jobId)], action, fields: {}, by: ROOT });
          }
          const cfg = c.state.config.sched;
          const ref = schedule(c.state, now, cfg, { maxJobsExamined: cfg.maxJobsPerPass });
          const fast = schedule(c.state, now, cfg, { maxJobsExamined: cfg.maxJobsPerPass, omitHeld: true });
          omittedTotal += expectSameAsQueued(c.state, fast, ref);
          if (ref.decisions.length > 0) c.run({ v: 1, type: "startJobs", at: now, decisions: ref.decisions });
          now += rng.int(30, 900);
        }
      } catch (error) {
        throw new Error(`SEED=${seed} failed (replay: SEED=${seed} bun --bun vitest run tests/unit/sched/held-omitted.test.ts): ${String(error)}`);
      }
    }
    // the fast path was taken, not only its fall-backs
    if (SEEDS.length >= 20) expect(omittedTotal).toBeGreaterThan(SEEDS.length);
  });
});
