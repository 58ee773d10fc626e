/**
 * @module bench/scale/ha
 * A 3-controller cluster (dist/spur, default settings: snapshots every ~20k entries) filled
 * with held jobs by 64 submissions in flight, until SCALE_HA_JOBS jobs (default 100000) or
 * SCALE_HA_SECONDS (default 240) have passed; the size reached is reported. Figures:
 *  - ha_term_changes: how much the Raft term moved during the run (goal 0: no election);
 *  - ha_max_client_ms: the slowest acknowledged submission (goal <= 200), over the whole
 *    fill and (ha_max_client_ms_full) over its last fifth, the cluster nearly full;
 *  - ha_failed: submissions not acknowledged (errors, timeouts);
 *  - ha_snapshot_block_ms: the longest any replica's thread spent on a snapshot (its log's
 *    "snapshot taken" blockMs; goal <= 50), with how many were taken and the largest image;
 *  - ha_slow_calls: submissions slower than SLOW_MS, and how many of them started while some
 *    replica's snapshot worker was building an image (from its request to the "snapshot taken"
 *    line), beside the share of the fill those windows cover (issue 16: the slow calls come in
 *    bursts, and most bursts fell in such windows);
 *  - ha_rss_mib: each replica's resident memory at the end, and its peak (VmHWM), beside its
 *    snapshot worker process's while one builds an image (worker_process_mib; 0 between images,
 *    and with SpurRaftSnapshotWorker=thread, whose worker is counted in the replica's).
 * Run alone: bun bench/scale/ha.ts (needs dist/spur: bun scripts/build-binary.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Cluster, leaderOf, pct, raftOf, round, submitTo, up } from "./replica-cluster.ts";
import { childPids } from "./lib/spur-cluster.ts";

const JOBS = Number(process.env.SCALE_HA_JOBS ?? 100_000);
const SECONDS = Number(process.env.SCALE_HA_SECONDS ?? 240);
const IN_FLIGHT = 64;
/** Extra spur.conf lines, ";"-separated (A/B of settings, e.g. SpurRaftSnapshotWorker=thread). */
const EXTRA_CONF = (process.env.SCALE_HA_CONF ?? "").split(";").filter((l) => l !== "");

type Emit = (o: object) => void;

interface Sample {
  atJobs: number;
  ms: number;
  /** Wall-clock start (ms since the epoch), kept for slow calls only. */
  startedAt?: number;
}

/** A call slower than this is counted in ha_slow_calls. */
const SLOW_MS = 150;

/** Watch every replica's term (Ping) every 250 ms until stopped. */
function watchTerms(c: Cluster): { stop(): Promise<{ first: number; last: number; leaders: Set<number> }> } {
  let first = 0;
  let last = 0;
  const leaders = new Set<number>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const views = await Promise.all([...c.urls].map(async ([id, url]) => [id, await raftOf(url)] as const));
      for (const [id, v] of views) {
        if (v.term === 0) continue;
        if (first === 0) first = v.term;
        last = Math.max(last, v.term);
        if (v.role === "leader") leaders.add(id);
      }
      await Bun.sleep(250);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { first, last, leaders };
    },
  };
}

function memoryOf(pid: number): { rssMib: number; peakMib: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
  return { rssMib: kb("VmRSS") / 1024, peakMib: kb("VmHWM") / 1024 };
}

/** The replica's child processes (its snapshot worker while one builds an image), summed. */
function childrenMemoryOf(pid: number): { rssMib: number; peakMib: number } {
  const each = childPids(pid).map((child) => {
    try {
      return memoryOf(child);
    } catch {
      return { rssMib: 0, peakMib: 0 }; // ended meanwhile
    }
  });
  return { rssMib: each.reduce((a, m) => a + m.rssMib, 0), peakMib: each.reduce((a, m) => a + m.peakMib, 0) };
}

interface SnapshotLine {
  /** When the line was written (ISO), and how long from the request to it. */
  time: string;
  ms: number;
  blockMs: number;
  /** Of blockMs, the store's write unit (the image or its name, the compaction, the commit). */
  storeMs?: number;
  /** The process's CPU time (all its threads) during storeMs. */
  storeCpuMs?: number;
  encodeMs: number;
  bytes: number;
  index: number;
}

function snapshotsIn(c: Cluster, id: number): { taken: SnapshotLine[]; lateTicks: number; workerStopped: boolean } {
  const lines = readFileSync(join(c.dir, "log", `spurctld-${id}.log`), "utf8").split("\n");
  const taken: SnapshotLine[] = [];
  let lateTicks = 0;
  let workerStopped = false;
  for (const line of lines) {
    if (line.includes('"snapshot taken"')) taken.push(JSON.parse(line) as SnapshotLine);
    else if (line.includes('"raft tick late"')) lateTicks++;
    else if (line.includes("snapshot worker stopped")) workerStopped = true;
  }
  return { taken, lateTicks, workerStopped };
}

export async function run(opts: { slurm: boolean; emit: Emit }): Promise<void> {
  const c = up(3, EXTRA_CONF);
  try {
    let url = c.urls.get(await leaderOf(c)) as string;
    let finding: Promise<void> | undefined;
    // After a failure, find the leader again (once for all the loops), as a CLI would.
    const refind = () =>
      (finding ??= (async () => {
        await Bun.sleep(50);
        const views = await Promise.all([...c.urls].map(async ([id, u]) => [id, u, await raftOf(u)] as const));
        const lead = views.find(([, , v]) => v.role === "leader");
        if (lead !== undefined) url = lead[1];
        finding = undefined;
      })());
    const terms = watchTerms(c);
    const samples: Sample[] = [];
    let ok = 0;
    let failed = 0;
    const started = performance.now();
    const startedWall = Date.now();
    const until = started + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (ok < JOBS && performance.now() < until) {
          const t = performance.now();
          const wall = Date.now();
          if (await submitTo(url, 10_000)) {
            const ms = performance.now() - t;
            samples.push({ atJobs: ++ok, ms, ...(ms > SLOW_MS ? { startedAt: wall } : {}) });
          } else {
            failed++;
            await refind();
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const endedWall = Date.now();
    const seen = await terms.stop();
    const all = samples.map((s) => s.ms);
    const full = samples.filter((s) => s.atJobs >= 0.8 * ok).map((s) => s.ms);
    const size = { jobs: ok, target_jobs: JOBS, seconds: round(seconds), submits_per_s: round(ok / seconds) };
    opts.emit({ metric: "ha_term_changes", value: seen.last - seen.first, unit: "terms", goal: 0, leaders: [...seen.leaders], ...size });
    opts.emit({ metric: "ha_max_client_ms", value: round(Math.max(0, ...all)), unit: "ms", goal: 200, p99_ms: round(pct(all, 99)), p50_ms: round(pct(all, 50)), ...size });
    opts.emit({ metric: "ha_max_client_ms_full", value: round(Math.max(0, ...full)), unit: "ms", goal: 200, p99_ms: round(pct(full, 99)), note: "last fifth of the fill", ...size });
    opts.emit({ metric: "ha_failed", value: failed, unit: "submissions", goal: 0, ...size });
    const snaps = [...c.urls.keys()].map((id) => [id, snapshotsIn(c, id)] as const);
    const taken = snaps.flatMap(([, s]) => s.taken);
    opts.emit({
      metric: "ha_snapshot_block_ms", value: round(Math.max(0, ...taken.map((t) => t.blockMs))), unit: "ms", goal: 50, snapshots: taken.length,
      encode_ms_max: round(Math.max(0, ...taken.map((t) => t.encodeMs))), bytes_max: Math.max(0, ...taken.map((t) => t.bytes)),
      indices: Object.fromEntries(snaps.map(([id, s]) => [id, s.taken.map((t) => t.index)])),
      block_ms_each: Object.fromEntries(snaps.map(([id, s]) => [id, s.taken.map((t) => t.blockMs)])),
      store_ms_each: Object.fromEntries(snaps.map(([id, s]) => [id, s.taken.map((t) => t.storeMs)])),
      store_cpu_ms_each: Object.fromEntries(snaps.map(([id, s]) => [id, s.taken.map((t) => t.storeCpuMs)])),
      raft_tick_late: snaps.reduce((n, [, s]) => n + s.lateTicks, 0), worker_stopped: snaps.some(([, s]) => s.workerStopped), ...size,
    });
    // Slow calls against the snapshot windows (request to image, any replica), and the share of the fill those cover.
    const windows = taken.map((t) => ({ end: Date.parse(t.time), start: Date.parse(t.time) - t.ms }));
    const inWindow = (at: number) => windows.some((w) => at >= w.start && at <= w.end);
    const slow = samples.filter((s) => s.startedAt !== undefined);
    let covered = 0;
    for (let at = startedWall; at < endedWall; at += 100) if (inWindow(at)) covered++;
    opts.emit({
      metric: "ha_slow_calls", value: slow.length, unit: "submissions", over_ms: SLOW_MS,
      in_snapshot_window: slow.filter((s) => inWindow(s.startedAt as number)).length,
      windows_cover_pct: round((100 * covered) / Math.max(1, (endedWall - startedWall) / 100)), ...size,
    });
    for (const id of c.urls.keys()) {
      const pid = Number(readFileSync(join(c.dir, "pids", `spurctld-${id}.pid`), "utf8"));
      const m = memoryOf(pid);
      const w = childrenMemoryOf(pid);
      opts.emit({
        metric: "ha_rss_mib", value: round(m.rssMib), unit: "MiB", replica: id, peak_mib: round(m.peakMib),
        worker_process_mib: round(w.rssMib), worker_process_peak_mib: round(w.peakMib), ...size,
      });
    }
  } finally {
    c.down();
  }
}

if (import.meta.main) await run({ slurm: process.argv.includes("--slurm"), emit: (o) => console.log(JSON.stringify(o)) });
