/**
 * @module bench/cli
 * CLI and controller figures, one JSON object per line ({metric, value, unit, system, ...conditions}):
 * - the start-up floor: a `bun build --compile --bytecode --minify` hello-world built and timed
 *   in this run, the same way as everything else (`hello_floor_ms`);
 * - per-command start-up (`spur version`, `spur --help`, `squeue/sinfo/sbatch --version`) and `squeue`/`sinfo`
 *   on an empty queue, each with `over_floor_ms` (median minus the floor's median);
 * - one `sbatch --hold` per call, timed interleaved with the floor and the other systems (`sbatch_submit_ms`), and
 *   submissions per second in one shell loop and in four loops in parallel;
 * - the controller's side of one submission: Submit over loopback from this process, one in
 *   flight (`submit_rpc_ms`: parse, durable append with fsync, apply, reply);
 * - squeue/sinfo with N queued jobs and the controller's resident memory (Spur only: the
 *   Slurm oracle is shared, it is not filled).
 * With --slurm, the same figures for the REAL Slurm oracle that is already up (shared with
 * other sessions: never started or stopped here; submissions use --hold and are cancelled
 * after), measured in the same run, interleaved run by run with Spur's so that both see
 * the same load, and reported as medians; ratios come out as `*_vs_slurm`.
 * With --base PATH (an older build of dist/spur), that binary runs a cluster of its own beside
 * this one's and every start-up probe and sbatch loop is timed for it too, interleaved in the same
 * run (`system: "spur-base"`, with its own `vs_slurm`): before/after on the same load.
 * Usage: bun bench/cli.ts [--slurm] [--jobs 10000 (0: skip)] [--runs 21] [--loop 100] [--rounds 3] [--bin dist/spur] [--base PATH]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const args = process.argv.slice(2);
const num = (name: string, dflt: number): number => {
  const i = args.indexOf(name);
  const v = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isFinite(v) ? v : dflt;
};
const QUEUED = num("--jobs", 10_000);
const RUNS = num("--runs", 21);
const LOOP_N = num("--loop", 100);
const ROUNDS = num("--rounds", 3);
const WITH_SLURM = args.includes("--slurm");
const binAt = args.indexOf("--bin");
const BIN = binAt >= 0 ? resolve(args[binAt + 1] as string) : resolve(import.meta.dir, "../dist/spur");
const baseAt = args.indexOf("--base");
const BASE_BIN = baseAt >= 0 ? resolve(args[baseAt + 1] as string) : undefined;
const BUN = process.execPath;
const SLURM_BIN = "/usr/bin";

interface System {
  name: "spur" | "spur-base" | "slurm";
  /** The spur binary (`spur version`, `spur --help`). */
  spurBin?: string;
  env: NodeJS.ProcessEnv;
  /** Absolute path of a command (Spur: its link; Slurm: /usr/bin/...). */
  bin: (c: string) => string;
  ctldPid?: () => number;
  fill?: (n: number) => Promise<void>;
  /** Job ids this system's sbatch printed: cancelled at the end (the Slurm oracle is shared). */
  submitted: string[];
}

function emit(metric: string, value: number, unit: string, system: string, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ metric, value: Number(value.toFixed(2)), unit, system, ...extra }));
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};

/**
 * Wall ms of one whole process (no shell in between: the floor is timed the same way), and
 * its CPU ms (user + system, all threads): on a shared machine wall time carries everyone
 * else's load, CPU time much less, so both are reported.
 */
function timeOnce(argv: string[], env: NodeJS.ProcessEnv, onStdout?: (text: string) => void): { wall: number; cpu: number } {
  const t0 = performance.now();
  const r = Bun.spawnSync(argv, { env, stdin: "ignore", stdout: onStdout === undefined ? "ignore" : "pipe", stderr: "pipe" });
  const wall = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`bench command failed (${r.exitCode}): ${argv.join(" ")}\n${r.stderr.toString()}`);
  onStdout?.(r.stdout?.toString() ?? "");
  return { wall, cpu: Number(r.resourceUsage?.cpuTime.total ?? NaN) / 1000 };
}

function sh(script: string, env: NodeJS.ProcessEnv): { ms: number; stdout: string } {
  const t0 = performance.now();
  const r = spawnSync("bash", ["-c", script], { env, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`bench command failed: ${script}\n${r.stderr}`);
  return { ms: performance.now() - t0, stdout: r.stdout };
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0) / 1024;
}

/** The floor: a compiled hello-world, built now with the same Bun and flags as dist/spur. */
function buildFloor(dir: string): string {
  const src = join(dir, "hello.ts");
  const out = join(dir, "hello");
  writeFileSync(src, 'console.log("hello");\n');
  const r = spawnSync(BUN, ["build", "--compile", "--bytecode", "--minify", "--format=esm", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", src, "--outfile", out], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`cannot build the hello-world floor: ${r.stderr}`);
  return out;
}

interface Probe {
  metric: string;
  system: string;
  argv: string[];
  env: NodeJS.ProcessEnv;
  extra?: Record<string, unknown>;
  /** What the command printed (sbatch's job ids, cancelled at the end). */
  onStdout?: (text: string) => void;
}

/** Every probe RUNS times, interleaved (probe 1, 2, ..., 1, 2, ...) so that load hits all alike; medians. */
function interleaved(probes: Probe[]): Map<Probe, { wall: number; cpu: number }> {
  const times = new Map<Probe, { wall: number; cpu: number }[]>(probes.map((p) => [p, []]));
  for (const p of probes) timeOnce(p.argv, p.env, p.onStdout); // warm the page cache once
  for (let i = 0; i < RUNS; i++) for (const p of probes) times.get(p)?.push(timeOnce(p.argv, p.env, p.onStdout));
  return new Map(probes.map((p) => {
    const t = times.get(p) ?? [];
    return [p, { wall: median(t.map((x) => x.wall)), cpu: median(t.map((x) => x.cpu)) }];
  }));
}

function startupProbes(s: System): Probe[] {
  const p = (metric: string, argv: string[], extra: Record<string, unknown> = {}): Probe => ({ metric, system: s.name, argv, env: s.env, extra });
  const probes = [
    p("squeue_version_ms", [s.bin("squeue"), "--version"]),
    p("sinfo_version_ms", [s.bin("sinfo"), "--version"]),
    p("sbatch_version_ms", [s.bin("sbatch"), "--version"]),
    p("squeue_empty_latency_ms", [s.bin("squeue")], { queued: s.name === "slurm" ? "shared oracle" : 0 }),
    p("sinfo_latency_ms", [s.bin("sinfo")]),
  ];
  if (s.spurBin !== undefined) probes.unshift(p("spur_version_ms", [s.spurBin, "version"]), p("spur_help_ms", [s.spurBin, "--help"]));
  return probes;
}

const submittedIds = (stdout: string): string[] => [...stdout.matchAll(/Submitted batch job (\d+)/g)].map((m) => m[1] as string);

/** Jobs per second of `loops` shell loops of sbatch --hold, each submitting `perLoop` jobs. */
function submitLoop(s: System, loops: number, perLoop: number): number {
  const cmd = `${s.bin("sbatch")} --hold --wrap=true`;
  const script = loops === 1
    ? `for i in $(seq ${perLoop}); do ${cmd}; done`
    : Array.from({ length: loops }, () => `(for i in $(seq ${perLoop}); do ${cmd}; done) &`).join(" ") + " wait";
  const r = sh(script, s.env);
  const ids = submittedIds(r.stdout);
  s.submitted.push(...ids);
  if (ids.length !== loops * perLoop) throw new Error(`${s.name}: ${ids.length} of ${loops * perLoop} submissions answered`);
  return (loops * perLoop * 1000) / r.ms;
}

/** The controller's side of a submission: Submit from this (already running) process, one in flight. */
async function submitRpcMs(conf: string, n: number): Promise<number> {
  const port = /ControlPort=(\d+)/.exec(readFileSync(conf, "utf8"))?.[1];
  const url = `http://127.0.0.1:${port}/spur.v1.Controller/Submit`;
  const body = JSON.stringify({ spec: { name: "rpc", script: "#!/bin/sh\ntrue\n", workDir: "/tmp", hold: true } });
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
    await res.text();
    if (!res.ok) throw new Error(`Submit answered HTTP ${res.status}`);
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function spurSystem(dir: string, bin = BIN, name: "spur" | "spur-base" = "spur"): Promise<{ sys: System; conf: string; down: () => void }> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`bun run build\` first`);
  const state = join(dir, name === "spur" ? "cluster" : `cluster-${name}`);
  const up = spawnSync(bin, ["up", "--detach", "--state-dir", state, "--nodes", "4"], { encoding: "utf8" });
  if (up.status !== 0) throw new Error(up.stderr);
  const conf = join(state, "spur.conf");
  const port = /ControlPort=(\d+)/.exec(readFileSync(conf, "utf8"))?.[1];
  const links = join(dir, name === "spur" ? "bin" : `bin-${name}`);
  spawnSync(bin, ["install-links", links]);
  const env = { ...process.env, SPUR_CONF: conf, PATH: `${links}:${process.env.PATH}` };
  const fill = async (n: number) => {
    const url = `http://127.0.0.1:${port}/spur.v1.Controller/Submit`;
    const body = JSON.stringify({ spec: { name: "fill", script: "#!/bin/sh\ntrue\n", workDir: "/tmp", hold: true } });
    for (let done = 0; done < n; ) {
      const batch = Math.min(64, n - done);
      await Promise.all(Array.from({ length: batch }, () => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.text())));
      done += batch;
    }
  };
  const sys: System = {
    name, spurBin: bin, env, bin: (c) => join(links, c), submitted: [], fill,
    ctldPid: () => Number(readFileSync(join(state, "pids", "spurctld.pid"), "utf8")),
  };
  return { sys, conf, down: () => void spawnSync(bin, ["down", "--state-dir", state]) };
}

/** The shared oracle, if it is up (never started or stopped here). */
function slurmSystem(): System | undefined {
  // Up is what answers: the oracle's start log has changed its last line before.
  const env = { ...process.env };
  if (spawnSync(`${SLURM_BIN}/sinfo`, ["-h"], { env }).status !== 0) return undefined;
  return { name: "slurm", env, bin: (c) => `${SLURM_BIN}/${c}`, submitted: [] };
}

function cancel(s: System): void {
  for (let i = 0; i < s.submitted.length; i += 200) {
    spawnSync(s.bin("scancel"), s.submitted.slice(i, i + 200), { env: s.env });
  }
}

const dir = mkdtempSync(join(tmpdir(), "spur-bench-"));
const floor = buildFloor(dir);
const spur = await spurSystem(dir);
const base = BASE_BIN === undefined ? undefined : await spurSystem(dir, BASE_BIN, "spur-base");
const slurm = WITH_SLURM ? slurmSystem() : undefined;
if (WITH_SLURM && slurm === undefined) emit("slurm_unavailable", 0, "", "slurm", { why: "the shared oracle does not answer sinfo" });
const systems = [spur.sys, ...(base ? [base.sys] : []), ...(slurm ? [slurm] : [])];
try {
  // 1. Start-up: floor and every command, interleaved.
  const floorProbe: Probe = { metric: "hello_floor_ms", system: "floor", argv: [floor], env: process.env };
  const probes = [floorProbe, ...systems.flatMap(startupProbes)];
  const med = interleaved(probes);
  const none = { wall: NaN, cpu: NaN };
  const f = med.get(floorProbe) ?? none;
  const r2 = (x: number) => Number(x.toFixed(2));
  emit("hello_floor_ms", f.wall, "ms", "floor", { runs: RUNS, cpu_ms: r2(f.cpu), build: "bun build --compile --bytecode --minify --format=esm --no-compile-autoload-dotenv --no-compile-autoload-bunfig" });
  for (const p of probes.slice(1)) {
    const m = med.get(p) ?? none;
    const slurmTwin = probes.find((q) => q.system === "slurm" && q.metric === p.metric);
    const vs = p.system !== "slurm" && slurmTwin ? { vs_slurm: r2(m.wall / (med.get(slurmTwin) ?? none).wall) } : {};
    emit(p.metric, m.wall, "ms", p.system, {
      runs: RUNS, over_floor_ms: r2(m.wall - f.wall), cpu_ms: r2(m.cpu), cpu_over_floor_ms: r2(m.cpu - f.cpu), ...vs, ...p.extra,
    });
  }

  // 1b. One submission per call, every system and the floor interleaved (after the empty-queue
  // probes, which it would fill): steadier on a shared machine than the loops below.
  const submitProbes: Probe[] = [floorProbe, ...systems.map((sys): Probe => ({
    metric: "sbatch_submit_ms", system: sys.name, argv: [sys.bin("sbatch"), "--hold", "--wrap=true"], env: sys.env,
    onStdout: (t: string) => void sys.submitted.push(...submittedIds(t)),
  }))];
  const sub = interleaved(submitProbes);
  const subFloor = sub.get(floorProbe) ?? none;
  const subSlurm = submitProbes.find((q) => q.system === "slurm");
  for (const p of submitProbes.slice(1)) {
    const m = sub.get(p) ?? none;
    const vs = p.system !== "slurm" && subSlurm ? { vs_slurm: r2(m.wall / (sub.get(subSlurm) ?? none).wall) } : {};
    emit(p.metric, m.wall, "ms", p.system, {
      runs: RUNS, over_floor_ms: r2(m.wall - subFloor.wall), cpu_ms: r2(m.cpu), cpu_over_floor_ms: r2(m.cpu - subFloor.cpu), floor_ms: r2(subFloor.wall), ...vs,
    });
  }

  // 2. sbatch loops, alternating systems round by round; medians.
  const rates = new Map<string, number[]>();
  const add = (k: string, v: number) => rates.set(k, [...(rates.get(k) ?? []), v]);
  for (let r = 0; r < ROUNDS; r++) {
    for (const s of systems) add(`${s.name}:1`, submitLoop(s, 1, LOOP_N));
    for (const s of systems) add(`${s.name}:4`, submitLoop(s, 4, Math.ceil(LOOP_N / 2)));
  }
  for (const loops of [1, 4]) {
    const metric = loops === 1 ? "sbatch_submit_loop_per_s" : "sbatch_submit_parallel4_per_s";
    const slurmRate = median(rates.get(`slurm:${loops}`) ?? []);
    const jobs = loops === 1 ? LOOP_N : 4 * Math.ceil(LOOP_N / 2);
    for (const name of ["spur", ...(base ? ["spur-base"] : [])]) {
      const rate = median(rates.get(`${name}:${loops}`) ?? []);
      emit(metric, rate, "jobs/s", name, { loops, jobs, rounds: ROUNDS, ...(slurm ? { vs_slurm: Number((rate / slurmRate).toFixed(2)) } : {}) });
    }
    if (slurm) emit(metric, slurmRate, "jobs/s", "slurm", { loops, jobs, rounds: ROUNDS });
  }

  // 3. The controller's side of one submission.
  for (const [name, conf] of [["spur", spur.conf], ...(base ? [["spur-base", base.conf]] : [])] as const) {
    emit("submit_rpc_ms", await submitRpcMs(conf, 100), "ms", name, { in_flight: 1, calls: 100, what: "Submit over loopback, JSON, durable append (fsync) + apply + reply" });
  }

  // 4. Spur with N queued (the shared Slurm oracle is not filled).
  const { fill, ctldPid } = spur.sys;
  if (QUEUED > 0 && fill !== undefined && ctldPid !== undefined) {
    await fill(Math.max(0, QUEUED - spur.sys.submitted.length - 100));
    const s = spur.sys;
    const q = interleaved([
      { metric: "squeue_queued_latency_ms", system: "spur", argv: [s.bin("squeue")], env: s.env },
      { metric: "sinfo_queued_latency_ms", system: "spur", argv: [s.bin("sinfo")], env: s.env },
    ].map((p) => p as Probe));
    for (const [p, m] of q) emit(p.metric, m.wall, "ms", "spur", { runs: RUNS, cpu_ms: Number(m.cpu.toFixed(2)), queued: QUEUED });
    emit("controller_rss_mib", rssMiB(ctldPid()), "MiB", "spur", { queued: QUEUED });
  }
} finally {
  if (slurm) cancel(slurm);
  spur.down();
  base?.down();
}
