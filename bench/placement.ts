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
 * sockets; a preference, no --gres-flags) and its placement_us_per_job; then a MIG
 * trace on H100 nodes, half with GPU 0 split (1g.10gb x 3 + 3g.40gb): type_exact_share
 * (typed jobs that got only GPUs of their type), clique_optimal_share and placement_us_per_job.
 * Usage: bun bench/placement.ts [--nodes 64] [--jobs 5000] [--seed 1]
 */
import { firstFitPlacer, runPlacementSim, simCluster, simMigCluster, simMigTrace, simTrace, spurPlacer } from "../src/sched/plan/gpu-placement-sim.ts";

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

const mig = simMigCluster(NODES);
const migTrace = simMigTrace(SEED, JOBS, NODES / 4);
const migConditions = { ...conditions, scenario: "mig", gpus_per_node: "8 whole or 1g.10gb x3 + 3g.40gb + 7 whole", links: "nvlink between whole GPUs" };
for (const [placer, run] of [["spur", spurPlacer], ["first_fit", firstFitPlacer]] as const) {
  const r = runPlacementSim(mig, migTrace, run, () => performance.now() * 1000);
  const emit = (metric: string, value: number, unit: string, extra: Record<string, unknown> = {}) =>
    console.log(JSON.stringify({ metric, value: Number(value.toFixed(4)), unit, placer, ...extra, ...migConditions }));
  emit("type_exact_share", r.typedJobs > 0 ? r.typeExact / r.typedJobs : 1, "ratio", { jobs_scored: r.typedJobs });
  emit("clique_optimal_share", r.multiGpuJobs > 0 ? r.cliqueOptimal / r.multiGpuJobs : 1, "ratio", { jobs_scored: r.multiGpuJobs });
  emit("placement_us_per_job", r.placementUs / Math.max(1, r.placementCalls), "us", { calls: r.placementCalls });
}
