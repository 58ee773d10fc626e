/**
 * @module bench/scale/cli
 * Issue 16, CLI figures: the compiled hello-world floor, every command's start-up over it,
 * `squeue`/`sinfo` on an empty queue, `sbatch` in one shell loop and in four, each beside
 * real Slurm's (the shared oracle, untouched but for held jobs it cancels) with `--slurm`.
 * The measuring is bench/cli.ts's (run as a child, `--jobs 0`); this adds each target as
 * `goal` and `met`. Knobs: SCALE_CLI_RUNS (21), SCALE_CLI_LOOP (100), SCALE_CLI_ROUNDS (3), SCALE_CLI_BASE
 * (an older build of dist/spur, timed interleaved beside this one as `system: "spur-base"`: before/after in one run).
 */
import { join } from "node:path";
import { envNum, forwardBench } from "./lib/forward.ts";

type Row = Record<string, unknown>;

/** Targets: start-up within 4 ms of the floor, empty listings within 8, submission rates as ratios of Slurm's. */
function goalOf(o: Row): { goal: string; met: boolean } | undefined {
  if (o.system !== "spur") return undefined;
  const over = typeof o.over_floor_ms === "number" ? o.over_floor_ms : undefined;
  const vs = typeof o.vs_slurm === "number" ? o.vs_slurm : undefined;
  if (/_version_ms$/.test(String(o.metric)) && over !== undefined) return { goal: "over_floor_ms <= 4", met: over <= 4 };
  if ((o.metric === "squeue_empty_latency_ms" || o.metric === "sinfo_latency_ms") && over !== undefined) {
    return { goal: "over_floor_ms <= 8", met: over <= 8 };
  }
  if (o.metric === "sbatch_submit_loop_per_s" && vs !== undefined) return { goal: "vs_slurm >= 0.5", met: vs >= 0.5 };
  if (o.metric === "sbatch_submit_parallel4_per_s" && vs !== undefined) return { goal: "vs_slurm >= 0.6", met: vs >= 0.6 };
  return undefined;
}

export async function run(opts: { slurm: boolean; emit: (o: object) => void }): Promise<void> {
  const args = [
    "--jobs", "0",
    "--runs", String(envNum("SCALE_CLI_RUNS", 21)),
    "--loop", String(envNum("SCALE_CLI_LOOP", 100)),
    "--rounds", String(envNum("SCALE_CLI_ROUNDS", 3)),
    ...(opts.slurm ? ["--slurm"] : []),
    ...(process.env.SCALE_CLI_BASE ? ["--base", process.env.SCALE_CLI_BASE] : []),
  ];
  await forwardBench(join(import.meta.dir, "..", "cli.ts"), args, (o) => opts.emit({ ...o, ...goalOf(o) }));
}
