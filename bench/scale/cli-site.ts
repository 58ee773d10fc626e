/**
 * @module bench/scale/cli-site
 * Issue 16, a big site's files: squeue, sbatch, scancel and squeue --me with 50k users in
 * /etc/passwd and /etc/group and 10k NodeName= lines in spur.conf (bench/cli-site.ts, run as a
 * child: a private mount namespace, so it needs root; with --slurm, real Slurm's squeue reading
 * the same files). No goal of its own: the start-up goals of bench/scale/cli.ts hold for a
 * site of any size. Knobs: SCALE_SITE_USERS (50000), SCALE_SITE_CONF_NODES (10000),
 * SCALE_SITE_RUNS (15), SCALE_SITE_BASE (an older build, timed interleaved as `spur-base`).
 */
import { join } from "node:path";
import { envNum, forwardBench } from "./lib/forward.ts";

export async function run(opts: { slurm: boolean; emit: (o: object) => void }): Promise<void> {
  if (process.getuid?.() !== 0) {
    opts.emit({ metric: "section_skipped", value: 0, unit: "", why: "needs root (unshare -m, mount --bind)" });
    return;
  }
  const args = [
    "--users", String(envNum("SCALE_SITE_USERS", 50_000)),
    "--conf-nodes", String(envNum("SCALE_SITE_CONF_NODES", 10_000)),
    "--runs", String(envNum("SCALE_SITE_RUNS", 15)),
    ...(opts.slurm ? ["--slurm"] : []),
    ...(process.env.SCALE_SITE_BASE ? ["--base", process.env.SCALE_SITE_BASE] : []),
  ];
  await forwardBench(join(import.meta.dir, "..", "cli-site.ts"), args, opts.emit);
}
