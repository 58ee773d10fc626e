/**
 * @module bench/scale/listing
 * Issue 16, listings at scale: `squeue` and `squeue --json` with 10k and 100k queued (held)
 * jobs, sacct (Spur's alone: the scratch Slurm keeps no accounting), `GET /slurm/v0.0.45/jobs` on spurrestd with 10k
 * (taken by Bun's fetch, and by curl), and the controller's resident memory
 * at each size. With --slurm, real Slurm's squeue beside Spur's at the same queue length, on
 * a scratch slurmctld this section starts (lib/slurm-scratch.ts: MaxJobCount raised there,
 * the shared oracle never sees these jobs), timed interleaved with Spur's.
 * Knobs: SCALE_LISTING_JOBS (sizes, "10000,100000"), SCALE_LISTING_SLURM_JOBS (the sizes
 * Slurm is filled to, "10000": its sbatch fills at about 250/s here, so 100k costs ~7 min),
 * SCALE_LISTING_RUNS (5), SCALE_LISTING_REST_RUNS (9), SCALE_LISTING_IDLE_S (10: how long each
 * controller's CPU is read while no one calls it, both at once; 0 skips).
 * Targets: Spur's time <= 0.5x Slurm's at the same size; GET /jobs with 10k <= 100 ms.
 */
import { spawnSync } from "node:child_process";
import { startScratchSlurm, type ScratchSlurm } from "./lib/slurm-scratch.ts";
import { cpuMs, rssMiB, SPUR_BIN, startSpur, type SpurCluster } from "./lib/spur-cluster.ts";
import { median, type Probe, r2, timeInterleaved } from "./lib/timing.ts";

const IDLE_S = Number(process.env.SCALE_LISTING_IDLE_S ?? 10);

const sizes = (name: string, dflt: string): number[] =>
  (process.env[name] ?? dflt).split(",").map(Number).filter((n) => Number.isFinite(n) && n > 0);

/**
 * Median wall ms of `runs` serial GETs of /jobs (after one warm-up), and the body size; beside
 * it the median time to the response headers (spurrestd's share before the body) and the
 * median of this client's own minor page faults per GET: receiving 42 MiB into fresh memory
 * faults ~10.8k pages, which on a VM whose faults are dear is most of the wall time
 * (bench/rest-jobs-ab.ts splits it further).
 */
async function restJobs(spur: SpurCluster, runs: number): Promise<{ ms: number; mib: number; jobs: number; headersMs: number; clientMinflt: number; curlMs: number | undefined }> {
  const tok = spawnSync(SPUR_BIN, ["scontrol", "token", "lifespan=3600"], { encoding: "utf8", env: spur.env }).stdout;
  const headers = { "X-SLURM-USER-TOKEN": /SLURM_JWT=(\S+)/.exec(tok)?.[1] ?? "" };
  const url = `http://127.0.0.1:${spur.restPort}/slurm/v0.0.45/jobs`;
  let body = new ArrayBuffer(0);
  const times: number[] = [];
  const heads: number[] = [];
  const faults: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const f0 = process.resourceUsage().minorPageFault;
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    const tHead = performance.now();
    body = await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET /jobs answered HTTP ${res.status}`);
    if (i > 0) {
      times.push(performance.now() - t0);
      heads.push(tHead - t0);
      faults.push(process.resourceUsage().minorPageFault - f0);
    }
    await Bun.sleep(20); // stays under spurrestd's default per-user rate limit
  }
  const jobs = (JSON.parse(new TextDecoder().decode(body)) as { jobs: unknown[] }).jobs.length;
  return { ms: median(times), mib: body.byteLength / 2 ** 20, jobs, headersMs: median(heads), clientMinflt: median(faults), curlMs: curlMs(url, headers, runs) };
}

/**
 * Median of curl's own total time (`-w %{time_total}`, the body read into a reused buffer and
 * dropped) over `runs` GETs: the same answer taken by a client that does not fault in fresh
 * memory for every response, as Bun's fetch above does. Undefined without curl.
 */
function curlMs(url: string, headers: Record<string, string>, runs: number): number | undefined {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const r = spawnSync("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]), url], { encoding: "utf8" });
    const [code, total] = (r.stdout ?? "").trim().split(" ");
    if (r.status !== 0 || code !== "200") return undefined;
    if (i > 0) times.push(Number(total) * 1000);
    Bun.sleepSync(20); // under spurrestd's default per-user rate limit
  }
  return median(times);
}

export async function run(opts: { slurm: boolean; emit: (o: object) => void }): Promise<void> {
  const spurSizes = sizes("SCALE_LISTING_JOBS", "10000,100000");
  const slurmSizes = opts.slurm ? sizes("SCALE_LISTING_SLURM_JOBS", "10000") : [];
  const runs = Number(process.env.SCALE_LISTING_RUNS ?? 5);
  const spur = startSpur();
  let slurm: ScratchSlurm | undefined;
  try {
    if (opts.slurm) {
      slurm = await startScratchSlurm();
      if (slurm === undefined) opts.emit({ metric: "slurm_unavailable", value: 0, unit: "", why: "scratch slurmctld did not start" });
    }
    let spurQueued = 0;
    let slurmQueued = 0;
    for (const n of [...new Set([...spurSizes, ...slurmSizes])].sort((a, b) => a - b)) {
      const withSpur = spurSizes.includes(n);
      const withSlurm = slurm !== undefined && slurmSizes.includes(n);
      const probes: Probe[] = [];
      if (withSpur) {
        const t0 = performance.now();
        await spur.fill(n - spurQueued);
        opts.emit({ metric: "fill_per_s", value: r2(((n - spurQueued) * 1000) / (performance.now() - t0)), unit: "jobs/s", system: "spur", via: "Submit RPC, 64 in flight", jobs: n });
        spurQueued = n;
        probes.push({ key: "spur:squeue", argv: [spur.bin("squeue")], env: spur.env }, { key: "spur:squeue --json", argv: [spur.bin("squeue"), "--json"], env: spur.env });
        // sacct with no accounting database on the scratch Slurm: Spur's alone (the held jobs are never eligible, so it prints the header)
        probes.push({ key: "spur:sacct", argv: [spur.bin("sacct")], env: spur.env }, { key: "spur:sacct -a -S now-1hour", argv: [spur.bin("sacct"), "-a", "-S", "now-1hour"], env: spur.env });
      }
      if (withSlurm && slurm !== undefined) {
        const t0 = performance.now();
        slurm.fill(n - slurmQueued);
        opts.emit({ metric: "fill_per_s", value: r2(((n - slurmQueued) * 1000) / (performance.now() - t0)), unit: "jobs/s", system: "slurm", via: "8 sbatch loops", jobs: n });
        slurmQueued = n;
        probes.push({ key: "slurm:squeue", argv: ["/usr/bin/squeue"], env: slurm.env }, { key: "slurm:squeue --json", argv: ["/usr/bin/squeue", "--json"], env: slurm.env });
      }
      const t = timeInterleaved(probes, runs);
      for (const cmd of ["squeue", "squeue --json"]) {
        const metric = cmd === "squeue" ? "squeue_queued_ms" : "squeue_json_queued_ms";
        const s = t.get(`spur:${cmd}`);
        const l = t.get(`slurm:${cmd}`);
        const vs = s && l ? { vs_slurm: r2(s.wallMs / l.wallMs), goal: "vs_slurm <= 0.5", met: s.wallMs / l.wallMs <= 0.5 } : {};
        if (s) opts.emit({ metric, value: r2(s.wallMs), unit: "ms", system: "spur", jobs: n, runs, cpu_ms: r2(s.cpuMs), stdout_mib: r2(s.stdoutBytes / 2 ** 20), ...vs });
        if (l) opts.emit({ metric, value: r2(l.wallMs), unit: "ms", system: "slurm", jobs: n, runs, cpu_ms: r2(l.cpuMs), stdout_mib: r2(l.stdoutBytes / 2 ** 20), where: "scratch slurmctld, MaxJobCount=200000" });
      }
      for (const cmd of ["sacct", "sacct -a -S now-1hour"]) {
        const s = t.get(`spur:${cmd}`);
        if (s) opts.emit({ metric: cmd === "sacct" ? "sacct_queued_ms" : "sacct_all_queued_ms", value: r2(s.wallMs), unit: "ms", system: "spur", jobs: n, runs, cpu_ms: r2(s.cpuMs), argv: cmd });
      }
      const slurmRss = withSlurm && slurm !== undefined ? rssMiB(slurm.pid) : undefined;
      if (withSpur) {
        const rss = spur.ctldRssMiB();
        const goal = slurmRss !== undefined ? { vs_slurm: r2(rss / slurmRss), goal: "<= slurm's", met: rss <= slurmRss } : n >= 100_000 ? { goal: "<= 250 MiB (issue: with 10k nodes)", met: rss <= 250 } : {};
        opts.emit({ metric: "controller_rss_mib", value: r2(rss), unit: "MiB", system: "spur", jobs: n, nodes: 4, ...goal });
      }
      if (slurmRss !== undefined) opts.emit({ metric: "controller_rss_mib", value: r2(slurmRss), unit: "MiB", system: "slurm", jobs: n, nodes: 4, where: "scratch slurmctld" });
      // what the queue costs a controller that nobody calls: its timers' work (scheduling passes, time limits, heartbeats)
      const idle = [...(withSpur ? [["spur", spur.ctldPid()] as const] : []), ...(withSlurm && slurm !== undefined ? [["slurm", slurm.pid] as const] : [])];
      if (IDLE_S > 0 && idle.length > 0) {
        const before = idle.map(([, pid]) => cpuMs(pid));
        await Bun.sleep(IDLE_S * 1000);
        idle.forEach(([system, pid], i) => opts.emit({ metric: "controller_idle_cpu_ms_per_s", value: r2((cpuMs(pid) - (before[i] as number)) / IDLE_S), unit: "ms/s", system, jobs: n, nodes: 4, seconds: IDLE_S, after: "the listings above" }));
      }
      if (withSpur && n === 10_000) {
        const r = await restJobs(spur, Number(process.env.SCALE_LISTING_REST_RUNS ?? 9));
        opts.emit({ metric: "rest_get_jobs_ms", value: r2(r.ms), unit: "ms", system: "spur", jobs: r.jobs, response_mib: r2(r.mib), version: "v0.0.45", headers_ms: r2(r.headersMs), client_minflt: r.clientMinflt, goal: "<= 100 ms", met: r.ms <= 100 });
        if (r.curlMs !== undefined) opts.emit({ metric: "rest_get_jobs_curl_ms", value: r2(r.curlMs), unit: "ms", system: "spur", jobs: r.jobs, response_mib: r2(r.mib), version: "v0.0.45", client: "curl -o /dev/null", goal: "<= 100 ms", met: r.curlMs <= 100 });
      }
    }
  } finally {
    slurm?.stop();
    spur.down();
  }
}
