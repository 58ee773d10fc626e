/**
 * @module bench/failover
 * Replicated-controller figures, one JSON object per line:
 *  - failover_p50_ms / failover_p99_ms: SIGKILL of the leader to the first acknowledged
 *    submission at a new leader (client: find the leader by pinging every replica, submit;
 *    in-process fetch, so CLI start-up is not counted), over --kills kills (default 20);
 *    each kill comes --settle-ms (default 1000) after the previous victim was restarted and
 *    every replica caught up, so a replica still starting (JIT, loading) is not the only
 *    voter left; breakdown: leader_seen_p50/p99_ms (a replica answers Ping as leader) and
 *    serve_after_seen_p50/p99_ms (from then to the acknowledged submission);
 *  - failover_cli_p50_ms (its max in the same line): the same, but the client is the real CLI
 *    (`sbatch --hold --wrap true`, a new process that pings every replica to find the
 *    leader), over --cli-kills kills (default 5), next to cli_submit_ms (the same sbatch with
 *    a stable leader): the difference is the CLI's rediscovery plus the election;
 *  - acked_lost: acknowledged submissions missing afterwards (must be 0);
 *  - replicated_submits_per_s (3 replicas) and single_submits_per_s (one spurctld), same
 *    client: --concurrency requests in flight for --seconds;
 *  - snapshot_100k_ms / restore_100k_ms / snapshot_100k_bytes: controller state with 100k
 *    jobs to a SQLite image and back (in process).
 * Usage: bun bench/failover.ts [--kills 20] [--concurrency 8] [--seconds 3] [--jobs 100000] [--election-ticks 20] [--settle-ms 1000]
 * Needs dist/spur (bun run build).
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseConf } from "../src/compat/conf/slurm-conf.ts";
import { createState } from "../src/sched/model/state.ts";
import { apply } from "../src/sched/model/apply.ts";
import { emptyJobSpec } from "../src/sched/model/records.ts";
import { DAEMON_ELECTION_TICKS } from "../src/raft/driver/api.ts";
import { encodeSnapshot, restoreSnapshot } from "../src/ctld/state-snapshot.ts";

const args = process.argv.slice(2);
const arg = (name: string, dflt: number) => Number(args[args.indexOf(name) + 1] ?? dflt) || dflt;
const KILLS = args.includes("--kills") ? arg("--kills", 20) : 20;
const CONCURRENCY = args.includes("--concurrency") ? arg("--concurrency", 8) : 8;
const SECONDS = args.includes("--seconds") ? arg("--seconds", 3) : 3;
const JOBS = args.includes("--jobs") ? arg("--jobs", 100_000) : 100_000;
/** Followers campaign after [E, 2E) silent ticks of 50 ms; spur.conf's default is 6. */
const ELECTION_TICKS = args.includes("--election-ticks") ? arg("--election-ticks", DAEMON_ELECTION_TICKS) : DAEMON_ELECTION_TICKS;
const CLI_KILLS = args.includes("--cli-kills") ? Number(args[args.indexOf("--cli-kills") + 1]) : 5;
const SETTLE_MS = args.includes("--settle-ms") ? Number(args[args.indexOf("--settle-ms") + 1]) : 1000;
const BIN = resolve(import.meta.dir, "../dist/spur");

function emit(metric: string, value: number, unit: string, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ metric, value: Number(value.toFixed(2)), unit, ...extra }));
}

interface Cluster {
  dir: string;
  urls: Map<number, string>;
  down(): void;
}

function up(controllers: number): Cluster {
  const dir = mkdtempSync(join(tmpdir(), "spur-bench-failover-"));
  const upArgs = ["up", "--detach", "--state-dir", dir, "--nodes", "1", "--controllers", String(controllers)];
  let r = spawnSync(BIN, upArgs, { encoding: "utf8" });
  if (r.status === 0 && controllers > 1 && ELECTION_TICKS !== DAEMON_ELECTION_TICKS) {
    // Restart with the asked election timeout (spur up writes the defaults).
    spawnSync(BIN, ["down", "--state-dir", dir]);
    writeFileSync(join(dir, "spur.conf"), `${readFileSync(join(dir, "spur.conf"), "utf8")}SpurRaftElectionTicks=${ELECTION_TICKS}\n`);
    r = spawnSync(BIN, upArgs, { encoding: "utf8" });
  }
  if (r.status !== 0) throw new Error(`spur up failed: ${r.stdout}${r.stderr}`);
  const conf = readFileSync(join(dir, "spur.conf"), "utf8");
  const line = /^SpurControllers=(\S+)/m.exec(conf)?.[1];
  const urls = new Map<number, string>();
  if (line === undefined) urls.set(1, `http://127.0.0.1:${/^ControlPort=(\d+)/m.exec(conf)?.[1]}`);
  else for (const p of line.split(",")) urls.set(Number(p.split("@")[0]), `http://${(p.split("@")[1] ?? "").split(":").slice(0, 2).join(":")}`);
  return {
    dir,
    urls,
    down() {
      spawnSync(BIN, ["down", "--state-dir", dir]);
      if (process.env.KEEP) console.error(`kept ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function post(url: string, method: string, body: unknown, timeoutMs = 2000): Promise<Response> {
  return fetch(`${url}/spur.v1.Controller/${method}`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs),
  });
}

async function roleOf(url: string): Promise<{ role: string; applied: number; commit: number }> {
  try {
    const r = (await (await post(url, "Ping", {}, 300)).json()) as { raft?: { role?: string; appliedIndex?: number; commitIndex?: number } };
    return { role: r.raft?.role ?? "leader", applied: r.raft?.appliedIndex ?? 0, commit: r.raft?.commitIndex ?? 0 };
  } catch {
    return { role: "down", applied: 0, commit: 0 };
  }
}

async function findLeader(c: Cluster): Promise<number | undefined> {
  const roles = await Promise.all([...c.urls].map(async ([id, url]) => [id, (await roleOf(url)).role] as const));
  return roles.find(([, role]) => role === "leader")?.[0];
}

let seq = 0;
const acked: { name: string; id: number }[] = [];
const spec = (name: string) => ({ spec: { ...emptyJobSpec(), name, script: "#!/bin/sh\ntrue\n", workDir: "/tmp", hold: true } });

/** One submission to `url`; the job id when acknowledged. */
async function submitTo(url: string): Promise<number | undefined> {
  const name = `b${seq++}`;
  try {
    const res = await post(url, "Submit", spec(name));
    if (!res.ok) return undefined;
    const id = ((await res.json()) as { jobId: number }).jobId;
    acked.push({ name, id });
    return id;
  } catch {
    return undefined;
  }
}

function pidOf(c: Cluster, id: number): number {
  return Number(readFileSync(join(c.dir, "pids", `spurctld-${id}.pid`), "utf8"));
}

function restart(c: Cluster, id: number): void {
  const fd = openSync(join(c.dir, "log", `spurctld-${id}.log`), "a");
  const child = spawn(BIN, ["spurctld", "--id", String(id), "--conf", join(c.dir, "spur.conf")], { detached: true, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  child.unref();
  writeFileSync(join(c.dir, "pids", `spurctld-${id}.pid`), String(child.pid));
}

async function caughtUp(c: Cluster): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const st = await Promise.all([...c.urls.values()].map(roleOf));
    const lead = st.find((s) => s.role === "leader");
    if (lead !== undefined && st.every((s) => s.role !== "down" && s.applied >= lead.commit - 1)) return;
    await Bun.sleep(25);
  }
  throw new Error("replicas did not catch up within 5 s");
}

const seenTimes: number[] = [];
const serveTimes: number[] = [];

async function failovers(c: Cluster): Promise<number[]> {
  const times: number[] = [];
  for (let k = 0; k < KILLS; k++) {
    await caughtUp(c);
    if (k > 0) await Bun.sleep(SETTLE_MS);
    const lead = await findLeader(c);
    if (lead === undefined) throw new Error("no leader");
    await submitTo(c.urls.get(lead) as string);
    const t0 = performance.now();
    process.kill(pidOf(c, lead), "SIGKILL");
    let seenMs = 0;
    let tries = 0;
    for (;;) {
      const next = await findLeader(c);
      tries++;
      if (next !== undefined && next !== lead && seenMs === 0) seenMs = performance.now() - t0;
      if (next !== undefined && next !== lead && (await submitTo(c.urls.get(next) as string)) !== undefined) break;
      if (performance.now() - t0 > 30_000) throw new Error("no new leader within 30 s");
    }
    times.push(performance.now() - t0);
    seenTimes.push(seenMs);
    serveTimes.push(performance.now() - t0 - seenMs);
    if (process.env.DEBUG) console.error(`kill ${k} at ${new Date(Date.now() - (performance.now() - t0)).toISOString()}: leader seen after ${seenMs.toFixed(0)} ms, acked after ${(performance.now() - t0).toFixed(0)} ms, ${tries} probes`);
    restart(c, lead);
  }
  return times;
}

/** sbatch through the real CLI until one is acknowledged; ms from `t0`. */
function cliSubmit(c: Cluster): boolean {
  const r = spawnSync(BIN, ["sbatch", "--hold", "--parsable", "-o", "/dev/null", "--wrap", "true"], {
    encoding: "utf8", env: { ...process.env, SPUR_CONF: join(c.dir, "spur.conf") }, cwd: "/tmp", timeout: 30_000,
  });
  return r.status === 0;
}

async function cliFailovers(c: Cluster): Promise<{ stable: number[]; failover: number[] }> {
  const stable: number[] = [];
  const failover: number[] = [];
  for (let k = 0; k < CLI_KILLS; k++) {
    await caughtUp(c);
    await Bun.sleep(SETTLE_MS);
    let t = performance.now();
    if (cliSubmit(c)) stable.push(performance.now() - t);
    const lead = await findLeader(c);
    if (lead === undefined) throw new Error("no leader");
    t = performance.now();
    process.kill(pidOf(c, lead), "SIGKILL");
    while (!cliSubmit(c)) if (performance.now() - t > 30_000) throw new Error("CLI: no acknowledged submission within 30 s");
    failover.push(performance.now() - t);
    restart(c, lead);
  }
  return { stable, failover };
}

async function throughput(url: string): Promise<number> {
  const until = performance.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) if ((await submitTo(url)) !== undefined) done++;
    }),
  );
  return done / SECONDS;
}

async function lostAcks(c: Cluster): Promise<number> {
  const lead = await findLeader(c);
  const res = await post(c.urls.get(lead as number) as string, "ListJobs", { includeFinished: true }, 30_000);
  const jobs = ((await res.json()) as { jobs: { jobId: number; name: string }[] }).jobs;
  const byName = new Map(jobs.map((j) => [j.name, j.jobId]));
  return acked.filter((a) => byName.get(a.name) !== a.id).length;
}

const pct = (xs: number[], p: number) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0;
};

function snapshotFigures(): void {
  const conf = parseConf("ClusterName=b\nNodeName=n[1-64] CPUs=64 RealMemory=256000\nPartitionName=p Nodes=n[1-64] Default=YES MaxTime=INFINITE\n");
  if (!conf.ok) throw new Error(conf.error.message);
  const made = createState(conf.value);
  if (!made.ok) throw new Error(made.error.message);
  const state = made.value;
  const by = { uid: 0, gid: 0, user: "root", group: "root" };
  for (let i = 0; i < JOBS; i++) apply(state, { v: 1, type: "submit", at: 1000 + i, spec: { ...emptyJobSpec(), name: `j${i}`, script: "#!/bin/sh\ntrue\n", workDir: "/tmp" }, by, priority: 0 });
  let t = performance.now();
  const image = encodeSnapshot(state, 123);
  emit("snapshot_100k_ms", performance.now() - t, "ms", { jobs: state.jobs.size });
  emit("snapshot_100k_bytes", image.length, "bytes", { jobs: state.jobs.size });
  const fresh = createState(conf.value);
  if (!fresh.ok) throw new Error("state");
  t = performance.now();
  restoreSnapshot(fresh.value, image);
  emit("restore_100k_ms", performance.now() - t, "ms", { jobs: fresh.value.jobs.size });
}

if (!existsSync(BIN)) throw new Error(`${BIN} missing: run bun run build first`);
const ha = up(3);
try {
  await caughtUp(ha);
  const times = await failovers(ha);
  emit("failover_p50_ms", pct(times, 50), "ms", { kills: times.length, tickMs: 50, electionTicks: ELECTION_TICKS });
  console.error(`failover times ms: ${times.map((t) => t.toFixed(0)).join(" ")}`);
  emit("failover_p99_ms", pct(times, 99), "ms", { kills: times.length, max: Number(Math.max(...times).toFixed(1)), settleMs: SETTLE_MS, loadavg1: Number(loadavg()[0]?.toFixed(2)) });
  emit("leader_seen_p50_ms", pct(seenTimes, 50), "ms", { kills: seenTimes.length });
  emit("leader_seen_p99_ms", pct(seenTimes, 99), "ms", { kills: seenTimes.length });
  emit("serve_after_seen_p50_ms", pct(serveTimes, 50), "ms", { kills: serveTimes.length });
  emit("serve_after_seen_p99_ms", pct(serveTimes, 99), "ms", { kills: serveTimes.length });
  if (CLI_KILLS > 0) {
    const cli = await cliFailovers(ha);
    console.error(`CLI failover times ms: ${cli.failover.map((t) => t.toFixed(0)).join(" ")}`);
    emit("cli_submit_ms", pct(cli.stable, 50), "ms", { runs: cli.stable.length, note: "sbatch process, stable leader" });
    emit("failover_cli_p50_ms", pct(cli.failover, 50), "ms", { kills: cli.failover.length, max: Number(Math.max(...cli.failover).toFixed(1)) });
  }
  await caughtUp(ha);
  const lead = await findLeader(ha);
  emit("replicated_submits_per_s", await throughput(ha.urls.get(lead as number) as string), "submits/s", { replicas: 3, concurrency: CONCURRENCY, seconds: SECONDS });
  await caughtUp(ha);
  emit("acked_lost", await lostAcks(ha), "submissions", { acked: acked.length });
} finally {
  ha.down();
}
const single = up(1);
try {
  emit("single_submits_per_s", await throughput(single.urls.get(1) as string), "submits/s", { replicas: 1, concurrency: CONCURRENCY, seconds: SECONDS });
} finally {
  single.down();
}
snapshotFigures();
