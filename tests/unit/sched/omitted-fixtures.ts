/**
 * The random cluster the "left out of the pass" property tests share (held-omitted, begin-omitted):
 * multifactor or basic priority, builtin or backfill with small budgets, 2-5 nodes, and two
 * partitions that overlap, sometimes on different PriorityTiers.
 */
import type { Rng } from "../../../src/lib/rng.ts";

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
