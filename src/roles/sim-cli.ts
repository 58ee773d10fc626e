/**
 * @module roles/sim-cli
 * `spur sim`: replay a Standard Workload Format trace (plain or .gz) or a
 * seeded synthetic workload through the real scheduler on a virtual clock and
 * print utilization, mean wait, mean bounded slowdown (10 s threshold) and the
 * simulation speed, for FCFS (sched/builtin) and EASY backfill. The shell
 * reads the file and the wall clock; the replay itself is src/sched/sim.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { parseFlagsOrThrow, type Flags, type ValueName } from "../lib/flags.ts";
import { parseSwf, type WorkloadJob } from "../sched/sim/swf.ts";
import { syntheticWorkload } from "../sched/sim/synthetic.ts";
import { replay, type SimResult } from "../sched/sim/replay.ts";
import { createRng } from "../lib/rng.ts";

export const SIM_USAGE = `Usage: spur sim [--trace FILE.swf[.gz] | --synthetic JOBS] [options]
  --trace FILE        Standard Workload Format trace (.gz accepted)
  --limit N           replay only the first N jobs of the trace
  --synthetic N       generate N jobs instead (seeded; --load L, default 0.7)
  --nodes N           machine size in nodes (default: the trace's MaxProcs, else 128)
  --cpus-per-node C   processors per node (default 1: one SWF processor per node)
  --scheduler S       fcfs, backfill or both (default both)
  --seed S            seed of the synthetic workload (default 1)
  --json              one JSON object per scheduler instead of a table
`;

const SIM_SPEC = {
  values: [["--trace"], ["--limit"], ["--synthetic"], ["--nodes"], ["--cpus-per-node"], ["--scheduler"], ["--seed"], ["--load"]],
  booleans: [["--json"], ["--help", "-h"]],
} as const;
type SimFlags = Flags<typeof SIM_SPEC>;

const num = (flags: SimFlags, name: ValueName<typeof SIM_SPEC>, dflt: number): number => {
  const v = flags.values[name];
  if (v === undefined) return dflt;
  const x = Number(v);
  if (!Number.isFinite(x) || x <= 0) throw new Error(`spur sim: error: ${name} takes a positive number, got "${v}"`);
  return x;
};

function load(flags: SimFlags): { jobs: WorkloadJob[]; procs: number; label: string } {
  const trace = flags.values["--trace"];
  if (trace !== undefined) {
    let raw: Buffer;
    try {
      raw = readFileSync(trace);
    } catch (error) {
      throw new Error(`spur sim: error: cannot read ${trace}: ${(error as Error).message}`);
    }
    const text = trace.endsWith(".gz") ? gunzipSync(raw).toString("utf8") : raw.toString("utf8");
    const w = parseSwf(text, num(flags, "--limit", Number.POSITIVE_INFINITY));
    return { jobs: w.jobs, procs: w.maxProcs, label: trace };
  }
  const n = num(flags, "--synthetic", 2000);
  const procs = num(flags, "--nodes", 128) * num(flags, "--cpus-per-node", 1);
  const jobs = syntheticWorkload(createRng(num(flags, "--seed", 1)), { jobs: Math.floor(n), procs, load: num(flags, "--load", 0.7) });
  return { jobs, procs, label: `synthetic(${n})` };
}

function table(rows: SimResult[], label: string): string {
  const lines = [`workload ${label}`, "scheduler   jobs  utilization  mean_wait_s  mean_bsld  sim_s_per_wall_s  backfilled"];
  for (const r of rows) {
    lines.push(
      `${r.scheduler.padEnd(9)} ${String(r.jobs).padStart(6)}  ${r.utilization.toFixed(3).padStart(11)}  ${r.meanWaitSec.toFixed(0).padStart(11)}  ${r.meanBoundedSlowdown.toFixed(2).padStart(9)}  ${r.simSecPerWallSec.toFixed(0).padStart(16)}  ${String(r.backfilled).padStart(10)}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

export function simMain(argv: string[]): { stdout: string; stderr: string; exitCode: number } {
  const flags = parseFlagsOrThrow("spur", argv, SIM_SPEC, "spur sim");
  if (flags.on["--help"]) return { stdout: SIM_USAGE, stderr: "", exitCode: 0 };
  const which = flags.values["--scheduler"] ?? "both";
  if (!["fcfs", "backfill", "both"].includes(which)) return { stdout: "", stderr: `spur sim: error: unknown scheduler "${which}"\n${SIM_USAGE}`, exitCode: 1 };
  const w = load(flags);
  const cpusPerNode = Math.floor(num(flags, "--cpus-per-node", 1));
  const nodes = Math.floor(num(flags, "--nodes", w.procs > 0 ? Math.ceil(w.procs / cpusPerNode) : 128));
  const schedulers = which === "both" ? (["fcfs", "backfill"] as const) : ([which] as ["fcfs" | "backfill"]);
  const rows = schedulers.map((scheduler) => replay(w.jobs, { nodes, cpusPerNode }, { scheduler, clockMs: () => performance.now() }));
  const stdout = flags.on["--json"] ? rows.map((r) => JSON.stringify({ workload: w.label, nodes, cpusPerNode, ...r })).join("\n") + "\n" : table(rows, w.label);
  return { stdout, stderr: "", exitCode: 0 };
}
