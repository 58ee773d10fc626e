/**
 * @module bench/cli
 * CLI and controller figures, one JSON object per line: sbatch submissions per
 * second (one shell loop, and 4 loops in parallel), squeue/sinfo latency on an
 * empty queue and with 10k queued jobs, and the controller's resident memory.
 * With --slurm, the same figures for real Slurm brought up by
 * ../shared/oracle/slurm-up.sh, in the same run.
 * Usage: bun bench/cli.ts [--jobs 10000] [--slurm]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const args = process.argv.slice(2);
const QUEUED = Number(args[args.indexOf("--jobs") + 1] ?? 0) || 10_000;
const BIN = resolve(import.meta.dir, "../dist/spur");
const ORACLE = resolve(import.meta.dir, "../../shared/oracle");

interface System {
  name: "spur" | "slurm";
  env: NodeJS.ProcessEnv;
  cmd: (c: string) => string;
  ctldPid: () => number;
  fill: (n: number) => Promise<void>;
}

function emit(metric: string, value: number, unit: string, system: string, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ metric, value: Number(value.toFixed(2)), unit, system, ...extra }));
}

function sh(script: string, env: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  const r = spawnSync("bash", ["-c", script], { env, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (r.status !== 0) throw new Error(`bench command failed: ${script}\n${r.stderr}`);
  return performance.now() - t0;
}

function medianMs(script: string, env: NodeJS.ProcessEnv, runs: number): number {
  const times = Array.from({ length: runs }, () => sh(script, env)).sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0) / 1024;
}

async function measure(s: System): Promise<void> {
  const env = s.env;
  emit("squeue_empty_latency_ms", medianMs(s.cmd("squeue"), env, 20), "ms", s.name, { runs: 20, queued: 0 });
  emit("sinfo_latency_ms", medianMs(s.cmd("sinfo"), env, 20), "ms", s.name, { runs: 20 });
  const loopN = 200;
  const loopMs = sh(`for i in $(seq ${loopN}); do ${s.cmd("sbatch --hold --wrap=true")} >/dev/null; done`, env);
  emit("sbatch_submit_loop_per_s", (loopN / loopMs) * 1000, "jobs/s", s.name, { jobs: loopN, loops: 1 });
  const parMs = sh(
    Array.from({ length: 4 }, () => `(for i in $(seq ${loopN / 2}); do ${s.cmd("sbatch --hold --wrap=true")} >/dev/null; done) &`).join(" ") + " wait",
    env,
  );
  emit("sbatch_submit_parallel4_per_s", ((loopN * 2) / parMs) * 1000, "jobs/s", s.name, { jobs: loopN * 2, loops: 4 });
  await s.fill(QUEUED - loopN * 3);
  emit("squeue_queued_latency_ms", medianMs(s.cmd("squeue") + " >/dev/null", env, 10), "ms", s.name, { runs: 10, queued: QUEUED });
  emit("sinfo_queued_latency_ms", medianMs(s.cmd("sinfo") + " >/dev/null", env, 10), "ms", s.name, { runs: 10, queued: QUEUED });
  emit("controller_rss_mib", rssMiB(s.ctldPid()), "MiB", s.name, { queued: QUEUED });
}

async function spurSystem(): Promise<{ sys: System; down: () => void }> {
  if (!existsSync(BIN)) throw new Error("dist/spur is missing: run `bun run build` first");
  const dir = mkdtempSync(join(tmpdir(), "spur-bench-"));
  const state = join(dir, "cluster");
  const up = spawnSync(BIN, ["up", "--detach", "--state-dir", state, "--nodes", "4"], { encoding: "utf8" });
  if (up.status !== 0) throw new Error(up.stderr);
  const conf = join(state, "spur.conf");
  const port = /ControlPort=(\d+)/.exec(readFileSync(conf, "utf8"))?.[1];
  const links = join(dir, "bin");
  spawnSync(BIN, ["install-links", links]);
  const env = { ...process.env, SPUR_CONF: conf, PATH: `${links}:${process.env.PATH}` };
  const fill = async (n: number) => {
    const url = `http://127.0.0.1:${port}/spur.v1.Controller/Submit`;
    const body = JSON.stringify({ spec: { name: "fill", script: "#!/bin/sh\ntrue\n", workDir: "/tmp", hold: true } });
    for (let done = 0; done < n; ) {
      const batch = Math.min(64, n - done);
      await Promise.all(Array.from({ length: batch }, () => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body })));
      done += batch;
    }
  };
  return {
    sys: { name: "spur", env, cmd: (c) => c, ctldPid: () => Number(readFileSync(join(state, "pids", "spurctld.pid"), "utf8")), fill },
    down: () => spawnSync(BIN, ["down", "--state-dir", state]),
  };
}

function slurmSystem(): { sys: System; down: () => void } | undefined {
  if (!existsSync(join(ORACLE, "slurm-up.sh"))) return undefined;
  const up = spawnSync("bash", [join(ORACLE, "slurm-up.sh")], { stdio: "inherit" });
  if (up.status !== 0) return undefined;
  const env = { ...process.env };
  const fill = async (n: number) => {
    sh(Array.from({ length: 4 }, () => `(for i in $(seq ${Math.ceil(n / 4)}); do sbatch --hold --wrap=true >/dev/null; done) &`).join(" ") + " wait", env);
  };
  const ctldPid = () => Number(spawnSync("bash", ["-c", "cat ${ORACLE_RUN:-/tmp/slurm-oracle}/pid/slurmctld.pid"], { encoding: "utf8" }).stdout.trim());
  return {
    sys: { name: "slurm", env, cmd: (c) => c, ctldPid, fill },
    down: () => spawnSync("bash", [join(ORACLE, "slurm-down.sh")], { stdio: "inherit" }),
  };
}

const spur = await spurSystem();
try {
  await measure(spur.sys);
} finally {
  spur.down();
}
if (args.includes("--slurm")) {
  const slurm = slurmSystem();
  if (slurm === undefined) console.log(JSON.stringify({ metric: "slurm_unavailable", value: 0, unit: "", system: "slurm" }));
  else {
    try {
      await measure(slurm.sys);
    } finally {
      slurm.down();
    }
  }
}
