/**
 * @module bench/placement
 * Placement quality and speed on a generated mixed GPU trace (seeded), for
 * Spur's topology-aware placement and for count-only first fit, one JSON object
 * per line: clique_optimal_share (multi-GPU jobs given a best-connected GPU set
 * when one was free), switch_optimal_share (multi-node jobs under the lowest
 * switch level available), placement_us_per_job (mean time of one placement
 * decision, including the ones that find no room), mean_wait_steps; then the same
 * trace on two-socket nodes (GPUs 0-3 on socket 0, 8 CPUs per GPU):
 * numa_local_share (single-node GPU jobs whose CPUs all sit on their GPUs'
 * sockets; a preference, no --gres-flags) and its placement_us_per_job.
 * Usage: bun bench/placement.ts [--nodes 64] [--jobs 5000] [--seed 1]
 */
import { firstFitPlacer, runPlacementSim, simCluster, simTrace, spurPlacer } from "../src/sched/plan/gpu-placement-sim.ts";

const args = process.argv.slice(2);
const arg = (name: string, dflt: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const NODES = arg("--nodes", 64);
const JOBS = arg("--jobs", 5000);
const SEED = arg("--seed", 1);

const cluster = simCluster(NODES);
const trace = simTrace(SEED, JOBS, NODES / 11);
const conditions = { nodes: NODES, gpus_per_node: 8, jobs: JOBS, seed: SEED, links: "half xgmi-full, half 2 hives of 4", switches: "leaf=4 nodes, spine=4 leaves, top" };
for (const [placer, run] of [["spur", spurPlacer], ["first_fit", firstFitPlacer]] as const) {
  const r = runPlacementSim(cluster, trace, run, () => performance.now() * 1000);
  const emit = (metric: string, value: number, unit: string, extra: Record<string, unknown> = {}) =>
    console.log(JSON.stringify({ metric, value: Number(value.toFixed(4)), unit, placer, ...extra, ...conditions }));
  emit("clique_optimal_share", r.multiGpuJobs > 0 ? r.cliqueOptimal / r.multiGpuJobs : 1, "ratio", { jobs_scored: r.multiGpuJobs });
  emit("switch_optimal_share", r.multiNodeJobs > 0 ? r.switchOptimal / r.multiNodeJobs : 1, "ratio", { jobs_scored: r.multiNodeJobs });
  emit("placement_us_per_job", r.placementUs / Math.max(1, r.placementCalls), "us", { calls: r.placementCalls });
  emit("mean_wait_steps", r.meanWaitSteps, "steps", { placed: r.placed });
}

const sockets = simCluster(NODES, 2);
const numa = runPlacementSim(sockets, trace, spurPlacer, () => performance.now() * 1000);
const numaConditions = { ...conditions, sockets_per_node: 2, cpus_per_gpu: 8 };
console.log(JSON.stringify({ metric: "numa_local_share", value: Number((numa.socketScored > 0 ? numa.numaLocal / numa.socketScored : 1).toFixed(4)), unit: "ratio", placer: "spur", jobs_scored: numa.socketScored, ...numaConditions }));
console.log(JSON.stringify({ metric: "placement_us_per_job", value: Number((numa.placementUs / Math.max(1, numa.placementCalls)).toFixed(4)), unit: "us", placer: "spur", calls: numa.placementCalls, ...numaConditions }));
