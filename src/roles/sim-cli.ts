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
import { parseSwf, type WorkloadJob } from "../sched/sim/swf.ts";
import { syntheticWorkload } from "../sched/sim/synthetic.ts";
import { replay, type SimResult } from "../sched/sim/replay.ts";
import { createRng } from "../lib/rng.ts";

/** `spur sim`'s flags, as given (admin/sim.ts declares them). */
export interface SimFlags {
  trace?: string | undefined;
  limit?: string | undefined;
  synthetic?: string | undefined;
  nodes?: string | undefined;
  cpusPerNode?: string | undefined;
  scheduler?: string | undefined;
  seed?: string | undefined;
  load?: string | undefined;
  json?: boolean | undefined;
}

type NumberFlag = "limit" | "synthetic" | "nodes" | "cpusPerNode" | "seed" | "load";
const FLAG_NAMES: Record<NumberFlag, string> = { limit: "--limit", synthetic: "--synthetic", nodes: "--nodes", cpusPerNode: "--cpus-per-node", seed: "--seed", load: "--load" };

const num = (flags: SimFlags, name: NumberFlag, dflt: number): number => {
  const v = flags[name];
  if (v === undefined) return dflt;
  const x = Number(v);
  if (!Number.isFinite(x) || x <= 0) throw new Error(`spur sim: error: ${FLAG_NAMES[name]} takes a positive number, got "${v}"`);
  return x;
};

function load(flags: SimFlags): { jobs: WorkloadJob[]; procs: number; label: string } {
  const trace = flags.trace;
  if (trace !== undefined) {
    let raw: Buffer;
    try {
      raw = readFileSync(trace);
    } catch (error) {
      throw new Error(`spur sim: error: cannot read ${trace}: ${(error as Error).message}`);
    }
    const text = trace.endsWith(".gz") ? gunzipSync(raw).toString("utf8") : raw.toString("utf8");
    const w = parseSwf(text, num(flags, "limit", Number.POSITIVE_INFINITY));
    return { jobs: w.jobs, procs: w.maxProcs, label: trace };
  }
  const n = num(flags, "synthetic", 2000);
  const procs = num(flags, "nodes", 128) * num(flags, "cpusPerNode", 1);
  const jobs = syntheticWorkload(createRng(num(flags, "seed", 1)), { jobs: Math.floor(n), procs, load: num(flags, "load", 0.7) });
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

/** `spur sim` (flags: admin/sim.ts). */
export function simMain(flags: SimFlags): { stdout: string; stderr: string; exitCode: number } {
  const which = flags.scheduler ?? "both";
  if (!["fcfs", "backfill", "both"].includes(which)) return { stdout: "", stderr: `spur sim: error: unknown scheduler "${which}" (fcfs, backfill or both)\n`, exitCode: 1 };
  const w = load(flags);
  const cpusPerNode = Math.floor(num(flags, "cpusPerNode", 1));
  const nodes = Math.floor(num(flags, "nodes", w.procs > 0 ? Math.ceil(w.procs / cpusPerNode) : 128));
  const schedulers = which === "both" ? (["fcfs", "backfill"] as const) : ([which] as ["fcfs" | "backfill"]);
  const rows = schedulers.map((scheduler) => replay(w.jobs, { nodes, cpusPerNode }, { scheduler, clockMs: () => performance.now() }));
  const stdout = flags.json === true ? rows.map((r) => JSON.stringify({ workload: w.label, nodes, cpusPerNode, ...r })).join("\n") + "\n" : table(rows, w.label);
  return { stdout, stderr: "", exitCode: 0 };
}
