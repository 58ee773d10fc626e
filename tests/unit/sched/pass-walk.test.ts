/**
 * The scheduling pass walks the job table once (computePriorities) and hands what it noted to the
 * parts that each walked every job before: fair tree's usage reads only the jobs that started,
 * nodeViews takes the --exclusive=user flag, the limit tracker and the license pool take the
 * running and suspended jobs. On seeded random histories (fair tree with two accounts, exclusive
 * users, licenses, limits, arrays, requeues, ends, holds) each must equal its own full walk.
 * A failure prints its seed; SEED=<n> replays one.
 */
import { describe, expect, it } from "vitest";
import { createRng, type Rng } from "../../../src/lib/rng.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { computePriorities, priorityContext } from "../../../src/sched/plan/priority.ts";
import { anyExclusiveUser } from "../../../src/sched/plan/user-exclusive.ts";
import { fairTree } from "../../../src/sched/acct/fair-tree.ts";
import { LimitTracker } from "../../../src/sched/acct/limits.ts";
import { LicensePool } from "../../../src/sched/plan/licenses.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import type { JobSpecP } from "../../../src/sched/model/types.ts";
import { acct } from "../acct/helpers.ts";
import { ALICE, ROOT, cluster, spec, submit } from "./builders.ts";

const SEEDS = process.env.SEED ? [Number(process.env.SEED)] : Array.from({ length: Number(process.env.SEEDS ?? 60) }, (_, i) => i + 1);

function conf(rng: Rng): string {
  return [
    "ClusterName=walk", "DefMemPerCPU=100", "PriorityType=priority/multifactor",
    "PriorityWeightFairshare=10000", "PriorityWeightAge=1000", "PriorityDecayHalfLife=00:10:00",
    rng.next() < 0.5 ? "AccountingStorageEnforce=associations,limits" : "",
    rng.next() < 0.5 ? "Licenses=lic:3" : "",
    `NodeName=n[1-${rng.int(2, 5)}] CPUs=4 RealMemory=1600`,
    "PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE", "",
  ].join("\n");
}

function randomSpec(rng: Rng, licenses: boolean): Partial<JobSpecP> {
  const s: Partial<JobSpecP> = { timeLimitMin: rng.pick([1, 5, 30]), ntasks: rng.int(1, 4), account: rng.pick(["a", "b"]) };
  if (rng.next() < 0.15) s.exclusiveUser = true;
  if (rng.next() < 0.2) s.hold = true;
  if (rng.next() < 0.1) s.array = "0-3%2";
  if (licenses && rng.next() < 0.3) s.licenses = "lic:1";
  return s;
}

describe("the pass's one walk of the jobs", () => {
  it(`gives what each full walk gives (${SEEDS.length} seeds)`, { timeout: 120_000 }, () => {
    let sawExclusive = 0;
    let sawStarted = 0;
    let sawSuspended = 0;
    for (const seed of SEEDS) {
      try {
        const rng = createRng(seed);
        const c = cluster(conf(rng));
        for (const name of ["a", "b"]) expect(c.run(acct({ action: "add", entity: "account", names: [name] })).error).toBe("");
        for (const [who, account] of [["root", "a"], ["root", "b"], ["alice", "a"]] as const) {
          expect(c.run(acct({ action: "add", entity: "user", names: [who], set: { account, ...(rng.next() < 0.3 ? { maxjobs: "2" } : {}) } })).error).toBe("");
        }
        const licenses = c.state.licenses !== undefined;
        let now = 100;
        for (let round = 0; round < 6; round++) {
          for (let k = rng.int(1, 6); k > 0; k--) c.run(submit(spec(randomSpec(rng, licenses)), now, rng.next() < 0.5 ? ROOT : ALICE));
          for (const job of [...c.state.jobs.values()]) {
            if (job.info.state !== "RUNNING" || rng.next() > 0.3) continue;
            const pick = rng.next();
            const cmd: Command = pick < 0.3
              ? { v: 1, type: "updateJob", at: now, jobIds: [String(job.info.jobId)], action: rng.pick(["requeue", "suspend"]), fields: {}, by: ROOT }
              : { v: 1, type: "jobEnded", at: now, jobId: job.info.jobId, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" };
            c.run(cmd);
          }
          const cfg = c.state.config.sched;
          const computed = computePriorities(c.state, now, cfg);
          // the flag, and the running and suspended jobs in the state's order
          expect(computed.exclusiveUser).toBe(anyExclusiveUser(c.state));
          if (computed.exclusiveUser) sawExclusive++;
          const active = [...c.state.jobs.values()].filter((j) => j.info.state === "RUNNING" || j.info.state === "SUSPENDED");
          expect(computed.active.map((j) => j.info.jobId)).toEqual(active.map((j) => j.info.jobId));
          if (active.some((j) => j.info.state === "SUSPENDED")) sawSuspended++;
          // fair tree from the started jobs only: the very same factors (same jobs, same order, same sums)
          const started = [...c.state.jobs.values()].filter((j) => j.info.startTime > 0);
          if (started.length > 0) sawStarted++;
          expect([...(computed.context?.fairshareByUser ?? [])]).toEqual([...(priorityContext(c.state, now, cfg)?.fairshareByUser ?? [])]);
          expect(fairTree(c.state, now, cfg.decayHalfLifeSec, started).rows).toEqual(fairTree(c.state, now, cfg.decayHalfLifeSec).rows);
          // limits and licenses charged from the active jobs: the same answers for every pending job
          const limits = new LimitTracker(c.state, now, computed.active);
          const limitsAll = new LimitTracker(c.state, now);
          const endOf = (j: { info: { startTime: number } }) => j.info.startTime + 1800;
          const pool = LicensePool.of(c.state, now, endOf, computed.active);
          const poolAll = LicensePool.of(c.state, now, endOf);
          for (const job of computed.pending) {
            expect(limits.reason(job)).toBe(limitsAll.reason(job));
            const want = [{ name: "lic", count: 1 }];
            expect(pool.fits(want, now, now + 60)).toBe(poolAll.fits(want, now, now + 60));
          }
          const r = schedule(c.state, now, cfg, { maxJobsExamined: cfg.maxJobsPerPass });
          if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at: now, decisions: r.decisions });
          now += rng.int(30, 400);
        }
      } catch (error) {
        throw new Error(`SEED=${seed} failed (replay: SEED=${seed} bun --bun vitest run tests/unit/sched/pass-walk.test.ts): ${String(error)}`);
      }
    }
    // the cases the walk's shortcuts are for did come up
    if (SEEDS.length >= 20) {
      expect(sawExclusive).toBeGreaterThan(SEEDS.length);
      expect(sawStarted).toBeGreaterThan(SEEDS.length);
      expect(sawSuspended).toBeGreaterThan(0);
    }
  });
});
