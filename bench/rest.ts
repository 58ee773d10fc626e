/**
 * @module bench/rest
 * spurrestd figures with a closed-loop load generator on loopback, one JSON
 * object per line: requests per second and p50/p99 latency for
 * `POST /slurm/v0.0.45/job/submit` (held jobs) and for `GET /slurm/v0.0.45/jobs/`
 * with 10k jobs queued, plus `GET ping/` as the floor. Bounded by request
 * count and by time per phase. Needs dist/spur (bun run build).
 * Usage: bun bench/rest.ts [--jobs 10000] [--submits 2000] [--concurrency 16]
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const args = process.argv.slice(2);
const arg = (name: string, dflt: number) => Number(args[args.indexOf(name) + 1] ?? 0) || dflt;
const QUEUED = arg("--jobs", 10_000);
const SUBMITS = arg("--submits", 2000);
const CONCURRENCY = arg("--concurrency", 16);
const PHASE_MS_MAX = 60_000;
const BIN = resolve(import.meta.dir, "../dist/spur");

function emit(metric: string, value: number, unit: string, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ metric, value: Number(value.toFixed(2)), unit, system: "spur", ...extra }));
}

interface Load {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  count: number;
  errors: number;
}

/** `workers` loops each sending one request after the other, until `total` are done or time runs out. */
async function load(total: number, workers: number, send: () => Promise<Response>): Promise<Load> {
  const lat: number[] = [];
  let started = 0;
  let errors = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (started < total && performance.now() - t0 < PHASE_MS_MAX) {
      started++;
      const s = performance.now();
      const res = await send();
      await res.arrayBuffer();
      if (!res.ok) errors++;
      lat.push(performance.now() - s);
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  const ms = performance.now() - t0;
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? 0;
  return { rps: (lat.length / ms) * 1000, p50Ms: q(0.5), p99Ms: q(0.99), count: lat.length, errors };
}

function report(name: string, r: Load, extra: Record<string, unknown>): void {
  emit(`${name}_rps`, r.rps, "req/s", { requests: r.count, errors: r.errors, ...extra });
  emit(`${name}_p50_ms`, r.p50Ms, "ms", extra);
  emit(`${name}_p99_ms`, r.p99Ms, "ms", extra);
}

if (!existsSync(BIN)) throw new Error("dist/spur is missing: run `bun run build` first");
const dir = mkdtempSync(join(tmpdir(), "spur-bench-rest-"));
const state = join(dir, "cluster");
const up = spawnSync(BIN, ["up", "--detach", "--state-dir", state, "--nodes", "4"], { encoding: "utf8" });
if (up.status !== 0) throw new Error(up.stderr);
try {
  const conf = join(state, "spur.conf");
  const text = readFileSync(conf, "utf8");
  const restPort = /RestPort=(\d+)/.exec(text)?.[1];
  const ctlPort = /ControlPort=(\d+)/.exec(text)?.[1];
  // The default per-user rate limit (100/s) would measure the limiter: restart spurrestd without it.
  const pidFile = join(state, "pids", "spurrestd.pid");
  process.kill(Number(readFileSync(pidFile, "utf8")), "SIGTERM");
  await new Promise((r) => setTimeout(r, 300));
  const log = openSync(join(state, "log", "spurrestd.log"), "a");
  const child = spawn(BIN, ["spurrestd", "--conf", conf, "--rate-limit", "0"], { detached: true, stdio: ["ignore", log, log] });
  closeSync(log);
  child.unref();
  writeFileSync(pidFile, String(child.pid));
  const base = `http://127.0.0.1:${restPort}/slurm/v0.0.45`;
  const token = /SLURM_JWT=(\S+)/.exec(spawnSync(BIN, ["scontrol", "token", "lifespan=3600"], { encoding: "utf8", env: { ...process.env, SPUR_CONF: conf } }).stdout)?.[1] ?? "";
  const headers = { "X-SLURM-USER-TOKEN": token, "content-type": "application/json" };
  for (let i = 0; i < 100; i++) {
    if ((await fetch(`${base}/ping/`, { headers }).catch(() => undefined))?.ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const cond = { concurrency: CONCURRENCY, loopback: true, version: "v0.0.45" };
  report("rest_ping", await load(1000, CONCURRENCY, () => fetch(`${base}/ping/`, { headers })), cond);
  const submitBody = JSON.stringify({ script: "#!/bin/sh\ntrue\n", job: { name: "bench", current_working_directory: "/tmp", environment: ["PATH=/bin"], hold: true } });
  report("rest_submit", await load(SUBMITS, CONCURRENCY, () => fetch(`${base}/job/submit`, { method: "POST", headers, body: submitBody })), { ...cond, jobs: SUBMITS });
  // Fill the queue to QUEUED held jobs straight through the controller, then list them over REST.
  const ctlUrl = `http://127.0.0.1:${ctlPort}/spur.v1.Controller/Submit`;
  const fillBody = JSON.stringify({ spec: { name: "fill", script: "#!/bin/sh\ntrue\n", workDir: "/tmp", hold: true } });
  for (let done = SUBMITS; done < QUEUED; ) {
    const batch = Math.min(64, QUEUED - done);
    await Promise.all(Array.from({ length: batch }, () => fetch(ctlUrl, { method: "POST", headers: { "content-type": "application/json" }, body: fillBody })));
    done += batch;
  }
  const sample = await fetch(`${base}/jobs/`, { headers });
  const bytes = (await sample.arrayBuffer()).byteLength;
  const size = { queued: QUEUED, responseMiB: Number((bytes / 2 ** 20).toFixed(1)) };
  report("rest_get_jobs_serial", await load(10, 1, () => fetch(`${base}/jobs/`, { headers })), { concurrency: 1, ...size });
  report("rest_get_jobs", await load(40, 4, () => fetch(`${base}/jobs/`, { headers })), { concurrency: 4, ...size });
} finally {
  spawnSync(BIN, ["down", "--state-dir", state]);
}
