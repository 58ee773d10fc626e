/**
 * @module bench/scale/large-cluster
 * What a large site's steady traffic costs the controller, per call (issue 16), by running the
 * stand-alone benches and forwarding their JSON lines:
 *  - heartbeat_ms: one node's heartbeat reconciled at 10k nodes and ~120k jobs (bench/heartbeat.ts);
 *  - submit_apply_ms under MaxSubmitJobs beside none, 10k jobs queued (bench/submit-limits.ts);
 *  - acknowledged submissions/s through 3 replicas to a 10k-node partition at 8 and 64 in flight
 *    (bench/scale/submit-cpu.ts with SUBMIT_CPU_NODES=10000; needs dist/spur).
 * No Slurm anchor: the oracle cannot hold 10k nodes on this machine; compare builds instead
 * (each bench takes another tree or binary, see its header).
 */
import { join } from "node:path";

type Emit = (o: object) => void;

/** Run a bench with `env`, forwarding every JSON line that names a metric (or the given keys) as a figure. */
function forward(emit: Emit, script: string, env: Record<string, string>, figure: (o: Record<string, unknown>) => object | undefined): void {
  const r = Bun.spawnSync([process.execPath, join(import.meta.dir, script)], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${script} exited ${r.exitCode}: ${r.stderr.toString().slice(-2000)}`);
  for (const line of r.stdout.toString().split("\n")) {
    if (!line.startsWith("{")) continue;
    const o = JSON.parse(line) as Record<string, unknown>;
    const f = figure(o);
    if (f !== undefined) emit(f);
  }
}

export async function run({ emit }: { slurm: boolean; emit: Emit }): Promise<void> {
  forward(emit, "../heartbeat.ts", {}, (o) => (o.metric === "heartbeat_ms" ? o : undefined));
  forward(emit, "../submit-limits.ts", { N: "10000" }, (o) => (o.metric === "submit_apply_ms" ? o : undefined));
  forward(emit, "submit-cpu.ts", { SUBMIT_CPU_NODES: "10000", SUBMIT_CPU_REPLICAS: "3", SUBMIT_CPU_ROUNDS: "1", SUBMIT_CPU_SECONDS: "4" }, (o) =>
    typeof o.per_s === "number"
      ? { metric: "replicated_submits_per_s_10k_nodes", value: o.per_s, unit: "1/s", in_flight: o.in_flight, replicas: o.replicas, nodes: o.nodes, all_cpu_ms_per_submit: o.all_cpu_ms_per_submit }
      : undefined);
}
