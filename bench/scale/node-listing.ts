/**
 * @module bench/scale/node-listing
 * Issue 16, node listings at scale: sinfo (grouped, -N, -o "%n %T", -R) and `scontrol show node
 * NAME` on a controller configured with SCALE_NODES nodes (10000: 80% GPU nodes, 20% CPU nodes,
 * three partitions, the third over all of them), no agents (every node UNKNOWN/DOWN, as in the
 * first minute of a cluster's start). With --slurm, the same lines on a scratch slurmctld of its
 * own (lib/slurm-scratch.ts: its nodes point at a port where no slurmd listens), timed
 * interleaved with Spur's. Target: Spur's time <= 0.5x Slurm's (the listing goal of the issue).
 * Knobs: SCALE_NODES (10000), SCALE_NODES_RUNS (5).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envNum } from "./lib/forward.ts";
import { freePort, startScratchSlurm, type ScratchSlurm } from "./lib/slurm-scratch.ts";
import { SPUR_BIN } from "./lib/spur-cluster.ts";
import { type Probe, r2, timeInterleaved } from "./lib/timing.ts";

/** The node and partition lines both systems read (Slurm's with its slurmd port and host). */
function nodeLines(n: number, extra: string): string[] {
  const gpus = Math.round(n * 0.8);
  return [
    `NodeName=gpu[1-${gpus}] ${extra}CPUs=128 Sockets=2 CoresPerSocket=64 ThreadsPerCore=1 RealMemory=512000 Feature=a100,ib State=UNKNOWN`,
    `NodeName=cpu[1-${n - gpus}] ${extra}CPUs=64 Sockets=2 CoresPerSocket=32 ThreadsPerCore=1 RealMemory=256000 State=UNKNOWN`,
    `PartitionName=gpu Nodes=gpu[1-${gpus}] Default=YES MaxTime=INFINITE State=UP`,
    `PartitionName=cpu Nodes=cpu[1-${n - gpus}] MaxTime=INFINITE State=UP`,
    `PartitionName=all Nodes=gpu[1-${gpus}],cpu[1-${n - gpus}] MaxTime=INFINITE State=UP`,
  ];
}

export async function run(opts: { slurm: boolean; emit: (o: object) => void }): Promise<void> {
  const n = envNum("SCALE_NODES", 10_000);
  const runs = envNum("SCALE_NODES_RUNS", 5);
  if (!existsSync(SPUR_BIN)) throw new Error(`${SPUR_BIN} is missing: run \`bun scripts/build-binary.ts\` first`);
  const dir = mkdtempSync(join(tmpdir(), "spur-scale-nodes-"));
  const port = await freePort();
  const conf = join(dir, "spur.conf");
  writeFileSync(conf, [`ClusterName=nodes${port}`, "ControlAddr=127.0.0.1", `ControlPort=${port}`, "AuthType=auth/loopback",
    `StateSaveLocation=${dir}/state`, "SlurmdTimeout=300", ...nodeLines(n, ""), ""].join("\n"));
  const ctld = Bun.spawn([SPUR_BIN, "spurctld", "--conf", conf], { stdout: "ignore", stderr: "ignore" });
  const spurEnv = { ...process.env, SPUR_CONF: conf };
  let slurm: ScratchSlurm | undefined;
  try {
    for (let i = 0; i < 100 && spawnSync(SPUR_BIN, ["sinfo", "-h"], { env: spurEnv, stdio: "ignore" }).status !== 0; i++) Bun.sleepSync(100);
    if (opts.slurm) {
      slurm = await startScratchSlurm((slurmdPort) => nodeLines(n, `NodeHostname=localhost NodeAddr=127.0.0.1 Port=${slurmdPort} `));
      if (slurm === undefined) opts.emit({ metric: "slurm_unavailable", value: 0, unit: "", why: "scratch slurmctld did not start" });
    }
    const lines: [string, string[]][] = [
      ["sinfo", []], ["sinfo_N", ["-N"]], ["sinfo_hostnames", ["-o", "%n %T"]], ["sinfo_R", ["-R"]],
    ];
    const probes: Probe[] = [];
    for (const [name, args] of lines) {
      probes.push({ key: `spur ${name}`, argv: [SPUR_BIN, "sinfo", ...args], env: spurEnv });
      if (slurm !== undefined) probes.push({ key: `slurm ${name}`, argv: ["/usr/bin/sinfo", ...args], env: slurm.env });
    }
    probes.push({ key: "spur scontrol_show_node", argv: [SPUR_BIN, "scontrol", "show", "node", "gpu5"], env: spurEnv });
    if (slurm !== undefined) probes.push({ key: "slurm scontrol_show_node", argv: ["/usr/bin/scontrol", "show", "node", "gpu5"], env: slurm.env });
    const timed = timeInterleaved(probes, runs);
    for (const [key, t] of timed) {
      const [system, name] = key.split(" ") as [string, string];
      const other = system === "spur" ? timed.get(`slurm ${name}`) : undefined;
      const vs = other === undefined ? {} : { vs_slurm: r2(t.wallMs / other.wallMs), goal: "vs_slurm <= 0.5", met: t.wallMs / other.wallMs <= 0.5 };
      opts.emit({ metric: `${name}_nodes_ms`, value: r2(t.wallMs), unit: "ms", system, nodes: n, runs, cpu_ms: r2(t.cpuMs), stdout_bytes: t.stdoutBytes, ...vs });
    }
  } finally {
    slurm?.stop();
    ctld.kill("SIGTERM");
    await ctld.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}
