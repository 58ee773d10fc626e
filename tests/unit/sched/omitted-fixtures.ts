/**
 * The random cluster and jobs the pass's property tests share (held-omitted, begin-omitted,
 * job-walk-memo): multifactor or basic priority, builtin or backfill with small budgets, 2-5
 * nodes, and two partitions that overlap, sometimes on different PriorityTiers; jobs with holds,
 * begin times, deadlines, dependencies, arrays and het components.
 */
import type { Rng } from "../../../src/lib/rng.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import type { JobSpecP } from "../../../src/sched/model/types.ts";
import { ALICE, ROOT, type cluster, spec, submit } from "./builders.ts";

/** slurm.conf text for one seeded run; `weights` are the multifactor weight lines when multifactor is drawn. */
export function omittedConf(rng: Rng, clusterName: string, weights: string): string {
  const tiers = rng.next() < 0.3 ? [1, 2] : [1, 1];
  return [
    `ClusterName=${clusterName}`, "DefMemPerCPU=100",
    rng.next() < 0.5 ? `PriorityType=priority/multifactor\n${weights}` : "",
    rng.next() < 0.5 ? "" : rng.pick(["SchedulerType=sched/builtin", "SchedulerParameters=bf_max_job_test=2", "SchedulerParameters=spur_max_jobs_per_pass=3"]),
    `NodeName=c[1-${rng.int(2, 5)}] CPUs=${rng.pick([2, 4])} RealMemory=1600`,
    `PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE PriorityTier=${tiers[0]}`,
    `PartitionName=other Nodes=c[1-2] MaxTime=INFINITE PriorityTier=${tiers[1]}`,
    "",
  ].join("\n");
}

/** How often a random job gets each option; `nice` and `exclusiveUser` are drawn only when given (a test's seeds stay the same). */
export interface JobOdds {
  hold: number;
  /** a begin time within `beginWithin` seconds of now */
  begin: number;
  beginWithin: number;
  nice?: number;
  exclusiveUser?: number;
}

function randomSpec(rng: Rng, now: number, lastId: number, odds: JobOdds): Partial<JobSpecP> {
  const s: Partial<JobSpecP> = { timeLimitMin: rng.pick([1, 5, 30, 200]), ntasks: rng.int(1, 4) };
  if (rng.next() < 0.3) s.partition = "other";
  if (rng.next() < odds.hold) s.hold = true;
  if (rng.next() < odds.begin) s.beginTime = now + rng.int(1, odds.beginWithin);
  if (rng.next() < 0.15) s.deadline = now + rng.int(60, 4000);
  if (rng.next() < 0.1 && lastId > 0) s.dependency = `afterok:${rng.int(1, lastId)}`;
  if (rng.next() < 0.1) s.array = "0-3%2";
  if (odds.nice !== undefined && rng.next() < odds.nice) s.nice = rng.int(-50, 50);
  if (odds.exclusiveUser !== undefined && rng.next() < odds.exclusiveUser) s.exclusiveUser = true;
  return s;
}

/** `count` random jobs from root and alice at `now`, a `hetShare` of them het jobs of two components. */
export function submitSome(c: ReturnType<typeof cluster>, rng: Rng, now: number, count: number, odds: JobOdds, hetShare = 0.1): void {
  for (let k = 0; k < count; k++) {
    const s = spec(randomSpec(rng, now, c.state.nextJobId - 1, odds));
    const by = rng.next() < 0.5 ? ROOT : ALICE;
    if (rng.next() < hetShare) {
      const het: Command = { v: 1, type: "submit", at: now, spec: s, by, priority: 0, het: [spec({ ntasks: 1, hold: s.hold ?? false, beginTime: s.beginTime ?? 0 })] };
      c.run(het);
    } else c.run(submit(s, now, by));
  }
}
