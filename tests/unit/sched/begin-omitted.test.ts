/**
 * schedule()'s omitBegin (plan/begin-jobs.ts: jobs waiting for their begin time stay out of
 * the queue and the result's maps) against the reference, the same state scheduled with every
 * pending job queued: on seeded random states (two partitions, some tiered, begin times that
 * pass between passes, StartTime updates, dependencies, deadlines, arrays, het jobs, held and
 * released jobs, small bf_max_job_test and jobs-examined budgets), over several passes whose
 * starts are applied, the decisions, reservations, expired and killed jobs are equal, and
 * every pending job's reason and priority are the reference's once a job left out reads as
 * BeginTime with explainPriority's value from the pass's context (and a held one as its hold).
 * A failure prints its seed; SEED=<n> replays one.
 */
import { describe, expect, it } from "vitest";
import { createRng, type Rng } from "../../../src/lib/rng.ts";
import { omittedConf, submitSome } from "./omitted-fixtures.ts";
import { schedule, type ScheduleResult } from "../../../src/sched/plan/schedule.ts";
import { heldReason } from "../../../src/sched/plan/eligibility.ts";
import { explainPriority } from "../../../src/sched/plan/priority.ts";
import { beginWaitReason } from "../../../src/sched/plan/begin-jobs.ts";
import { ROOT, ALICE, cluster, spec, submit } from "./builders.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";

const SEEDS = process.env.SEED ? [Number(process.env.SEED)] : Array.from({ length: Number(process.env.SEEDS ?? 150) }, (_, i) => i + 1);

const conf = (rng: Rng): string => omittedConf(rng, "b", "PriorityWeightAge=1000\nPriorityWeightJobSize=1000\nPriorityWeightFairshare=1000");

/** Every pending job's reason and priority as the reference gives them, read from a result made with omitBegin (and omitHeld). */
function expectSameAsQueued(state: ClusterState, now: number, fast: ScheduleResult, ref: ScheduleResult): number {
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
    const waiting = !fast.priorities.has(id) && beginWaitReason(job, now) !== undefined;
    if (waiting) omitted++;
    const reason = fast.reasons.get(id) ?? (held ? heldReason(job) : waiting ? "BeginTime" : undefined);
    expect([id, reason]).toEqual([id, ref.reasons.get(id)]);
    const priority = fast.priorities.get(id) ?? (held ? 0 : waiting ? explainPriority(job, fast.priorityContext).priority : undefined);
    expect([id, priority]).toEqual([id, ref.priorities.get(id)]);
  }
  for (const id of fast.reasons.keys()) expect(ref.reasons.has(id)).toBe(true);
  expect(fast.beginOmitted).toBe(omitted);
  return omitted;
}

describe("jobs waiting for their begin time left out of the pass (omitBegin)", () => {
  it(`decide and read as with them queued (${SEEDS.length} seeds)`, { timeout: 120_000 }, () => {
    let omittedTotal = 0;
    let becameDue = 0;
    for (const seed of SEEDS) {
      try {
        const rng = createRng(seed);
        const c = cluster(conf(rng));
        // het jobs make the pass queue them all (begin-jobs.ts): only some seeds have any, so both paths are taken
        const hetShare = seed % 4 === 0 ? 0.1 : 0;
        let now = 100;
        let waitingBefore = new Set<number>();
        for (let pass = 0; pass < 6; pass++) {
          // often within the next passes' reach (they are 30-900 s apart)
          submitSome(c, rng, now, rng.int(2, 8), { hold: 0.15, begin: 0.5, beginWithin: 1500, nice: 0.1 }, hetShare);
          for (const job of [...c.state.jobs.values()]) {
            if (job.info.state !== "PENDING" || rng.next() > 0.2) continue;
            const r = rng.next();
            // held jobs released and pending ones held, some begin times moved (later, or to now)
            const action = r < 0.5 ? (job.info.priority === 0 ? "release" : "hold") : "update";
            const fields: Record<string, string> = action === "update" ? { starttime: r < 0.75 ? `now+${rng.int(1, 1200)}` : "now" } : {};
            c.run({ v: 1, type: "updateJob", at: now, jobIds: [String(job.info.jobId)], action, fields, by: ROOT });
          }
          const cfg = c.state.config.sched;
          const ref = schedule(c.state, now, cfg, { maxJobsExamined: cfg.maxJobsPerPass });
          const fast = schedule(c.state, now, cfg, { maxJobsExamined: cfg.maxJobsPerPass, omitHeld: true, omitBegin: true });
          omittedTotal += expectSameAsQueued(c.state, now, fast, ref);
          // a job left out by the last pass whose begin time has come is queued by this one
          for (const id of waitingBefore) {
            const job = c.state.jobs.get(id);
            if (job === undefined || job.info.state !== "PENDING" || job.info.priority === 0 || job.info.eligibleTime > now) continue;
            expect(fast.priorities.has(id) || fast.decisions.some((d) => d.jobId === id)).toBe(true);
            becameDue++;
          }
          waitingBefore = new Set([...c.state.jobs.values()].filter((j) => beginWaitReason(j, now) !== undefined && !fast.priorities.has(j.info.jobId)).map((j) => j.info.jobId));
          if (ref.decisions.length > 0) c.run({ v: 1, type: "startJobs", at: now, decisions: ref.decisions });
          now += rng.int(30, 900);
        }
      } catch (error) {
        throw new Error(`SEED=${seed} failed (replay: SEED=${seed} bun --bun vitest run tests/unit/sched/begin-omitted.test.ts): ${String(error)}`);
      }
    }
    // the fast path was taken, and jobs it left out became due later
    if (SEEDS.length >= 20) {
      expect(omittedTotal).toBeGreaterThan(SEEDS.length);
      expect(becameDue).toBeGreaterThan(SEEDS.length / 4);
    }
  });

  it("a job whose begin time passes between two passes is left out of the first and starts in the second", () => {
    const c = cluster("ClusterName=b\nDefMemPerCPU=100\nNodeName=c1 CPUs=2 RealMemory=1600\nPartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE\n");
    c.run(submit(spec({ ntasks: 1, timeLimitMin: 5, beginTime: 160 }), 100, ALICE));
    const cfg = c.state.config.sched;
    const budget = { maxJobsExamined: cfg.maxJobsPerPass, omitHeld: true, omitBegin: true };
    const first = schedule(c.state, 159, cfg, budget);
    expect(first.decisions).toEqual([]);
    expect(first.beginOmitted).toBe(1);
    expect(first.reasons.has(1)).toBe(false);
    expect(first.stats.queueLength).toBe(1);
    const second = schedule(c.state, 160, cfg, budget);
    expect(second.beginOmitted).toBe(0);
    expect(second.decisions.map((d) => d.jobId)).toEqual([1]);
  });

  it("a job left out whose deadline can no longer be met gets DeadLine and is ended", () => {
    const c = cluster("ClusterName=b\nDefMemPerCPU=100\nNodeName=c1 CPUs=2 RealMemory=1600\nPartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE\n");
    c.run(submit(spec({ ntasks: 1, timeLimitMin: 10, beginTime: 1000, deadline: 700 }), 100, ALICE));
    const cfg = c.state.config.sched;
    const fast = schedule(c.state, 200, cfg, { maxJobsExamined: cfg.maxJobsPerPass, omitBegin: true });
    expect(fast.beginOmitted).toBe(1);
    expect(fast.expired).toEqual([1]);
    expect(fast.reasons.get(1)).toBe("DeadLine");
  });

  it("a het job waiting for its begin time is queued as before: its components' reasons and expiry follow its leader", () => {
    const c = cluster("ClusterName=b\nDefMemPerCPU=100\nNodeName=c1 CPUs=2 RealMemory=1600\nPartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE\n");
    const late = { ntasks: 1, timeLimitMin: 10, beginTime: 1000, deadline: 700 };
    c.run({ v: 1, type: "submit", at: 100, spec: spec(late), by: ALICE, priority: 0, het: [spec(late)] });
    expect(c.state.jobs.size).toBe(2);
    const cfg = c.state.config.sched;
    const ref = schedule(c.state, 200, cfg, { maxJobsExamined: cfg.maxJobsPerPass });
    const fast = schedule(c.state, 200, cfg, { maxJobsExamined: cfg.maxJobsPerPass, omitBegin: true });
    expect(fast.beginOmitted).toBe(0);
    expect(fast.expired).toEqual(ref.expired);
    expect([...fast.reasons]).toEqual([...ref.reasons]);
  });
});
