/**
 * Pins the scheduler's whole plan (decisions, every pending reason, reservations,
 * priorities, expired and dependency kills) on seeded states built like
 * bench/sched.ts's (mixed small, exclusive multi-node and GPU jobs on mostly busy
 * nodes, multifactor priority), over several chained passes whose starts are applied.
 * The digests were recorded before the scheduler was optimised for issue 16: a
 * speed-up must leave every one unchanged (the plan is a pure function of state,
 * now and config). A deliberate change of policy updates them, and says so.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildBigState } from "../../../bench/sched-state.ts";
import { schedule, type ScheduleResult } from "../../../src/sched/plan/schedule.ts";
import { apply } from "../../../src/sched/model/apply.ts";

const NOW = 1_800_000_000;

function digest(r: ScheduleResult): string {
  const plan = {
    decisions: r.decisions,
    reasons: [...r.reasons].sort((a, b) => a[0] - b[0]),
    reservations: r.reservations,
    priorities: [...r.priorities].sort((a, b) => a[0] - b[0]),
    expired: r.expired,
    invalidDeps: r.invalidDeps,
  };
  return createHash("sha256").update(JSON.stringify(plan)).digest("hex").slice(0, 16);
}

/** Digests of `passes` chained passes (each pass's starts applied before the next, 5 minutes apart). */
function run(seed: number, schedulerParameters: string, passes: number): string[] {
  const state = buildBigState({ nodes: 240, pending: 3000, busyFraction: 0.9, seed, schedulerParameters }, NOW);
  const out: string[] = [];
  for (let k = 0; k < passes; k++) {
    const now = NOW + k * 300;
    const r = schedule(state, now, state.config.sched, { maxJobsExamined: state.config.sched.maxJobsPerPass });
    out.push(digest(r));
    if (r.decisions.length > 0) apply(state, { v: 1, type: "startJobs", at: now, decisions: r.decisions });
  }
  return out;
}

const GOLDEN: Record<string, string[]> = {
  "seed 1": ["538ce330ad9263c9", "1da3871757a42de0", "665b2bf481dfa0c1"],
  "seed 2": ["bc3c3ef57ac12fd9", "c386145ab61b19ec", "92645f25e14328c0"],
  "seed 3, plain EASY": ["581ada12b255e228", "d31e25c621e94e00", "83cce2bc136b225e"],
  "seed 4, shallow backfill": ["dd25e03026c9091a", "327a2cfcb54ec643", "c046705db3aade21"],
};

describe("scheduler plans stay what they were before optimisation", () => {
  for (const [name, seed, params] of [
    ["seed 1", 1, ""],
    ["seed 2", 2, ""],
    ["seed 3, plain EASY", 3, "bf_job_part_count_reserve=1"],
    ["seed 4, shallow backfill", 4, "bf_max_job_test=20"],
  ] as const) {
    it(name, { timeout: 60_000 }, () => {
      const got = run(seed, params, 3);
      if (process.env.PRINT_GOLDEN) console.log(JSON.stringify(name), JSON.stringify(got));
      expect(got).toEqual(GOLDEN[name]);
    });
  }
});
