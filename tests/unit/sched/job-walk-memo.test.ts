/**
 * schedule() with a walk kept between passes (priority.ts JobWalkMemo, as the controller's
 * scheduler loop keeps one) against the same pass with a fresh walk: on seeded random states
 * (held and released jobs, begin times, deadlines, dependencies, arrays, het jobs, cancels,
 * starts applied), every result is equal, both right after commands were applied and again at
 * a later time with no command in between (a begin time or deadline may pass meanwhile: what the
 * kept walk leaves to each pass). A failure prints its seed; SEED=<n> replays one.
 */
import { describe, expect, it } from "vitest";
import { createRng } from "../../../src/lib/rng.ts";
import { omittedConf, submitSome } from "./omitted-fixtures.ts";
import { schedule, type ScheduleResult } from "../../../src/sched/plan/schedule.ts";
import { newJobWalkMemo } from "../../../src/sched/plan/priority.ts";
import { ROOT, cluster } from "./builders.ts";

const SEEDS = process.env.SEED ? [Number(process.env.SEED)] : Array.from({ length: Number(process.env.SEEDS ?? 80) }, (_, i) => i + 1);

const ALL = { jobIds: [], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" };

/** What a pass decides and shows, as plain data. */
function seen(r: ScheduleResult): unknown {
  return {
    decisions: r.decisions, reservations: r.reservations, expired: r.expired, invalidDeps: r.invalidDeps, beginOmitted: r.beginOmitted,
    queueLength: r.stats.queueLength, reasons: [...r.reasons.entries()].sort((a, b) => a[0] - b[0]),
    priorities: [...r.priorities.entries()].sort((a, b) => a[0] - b[0]),
  };
}

describe("the scheduler's walk of the jobs kept between passes", () => {
  it(`gives the results of a fresh walk, after changes and as time passes (${SEEDS.length} seeds)`, { timeout: 120_000 }, () => {
    let reused = 0;
    for (const seed of SEEDS) {
      try {
        const rng = createRng(seed);
        const c = cluster(omittedConf(rng, "w", "PriorityWeightAge=1000\nPriorityWeightJobSize=1000"));
        const memo = newJobWalkMemo();
        const cfg = c.state.config.sched;
        const pass = (now: number, walk?: typeof memo): ScheduleResult =>
          schedule(c.state, now, cfg, { maxJobsExamined: cfg.maxJobsPerPass, omitHeld: true, omitBegin: true, ...(walk === undefined ? {} : { walk }) });
        let now = 100;
        for (let round = 0; round < 6; round++) {
          submitSome(c, rng, now, rng.int(2, 8), { hold: 0.4, begin: 0.2, beginWithin: 600, exclusiveUser: 0.05 });
          for (const job of [...c.state.jobs.values()]) {
            const state = job.info.state;
            if ((state !== "PENDING" && state !== "RUNNING") || rng.next() > 0.2) continue;
            const id = String(job.info.jobId);
            if (state === "RUNNING" || rng.next() < 0.2) {
              const r = c.run({ v: 1, type: "cancel", at: now, filter: { ...ALL, jobIds: [id] }, signal: 0, batchOnly: false, by: ROOT });
              expect(r.errorCode).toBe("");
            } else c.run({ v: 1, type: "updateJob", at: now, jobIds: [id], action: job.info.priority === 0 ? "release" : "hold", fields: {}, by: ROOT });
          }
          const kept = pass(now, memo);
          expect(seen(kept)).toEqual(seen(pass(now)));
          // no command since: the kept walk is reused, later (begin times and deadlines may have passed)
          const walkBefore = memo.walk;
          const later = now + rng.int(1, 700);
          expect(seen(pass(later, memo))).toEqual(seen(pass(later)));
          if (memo.walk === walkBefore) reused++;
          if (kept.decisions.length > 0) c.run({ v: 1, type: "startJobs", at: now, decisions: kept.decisions });
          now = later + rng.int(30, 900);
        }
      } catch (error) {
        throw new Error(`SEED=${seed} failed (replay: SEED=${seed} bun --bun vitest run tests/unit/sched/job-walk-memo.test.ts): ${String(error)}`);
      }
    }
    // the kept walk was reused, not made again each pass
    expect(reused).toBe(SEEDS.length * 6);
  });
});
