/**
 * @module bench/rest-jobs-ab
 * `GET /slurm/v0.0.45/jobs` with N held jobs (10k), two spurrestd builds side by side on ONE
 * cluster (dist/spur's, and `--base BIN`'s when given), timed interleaved (the order flips
 * each round), so that a before/after comparison shares the machine's load and the queue.
 * Per build, each a median over the rounds:
 * - `whole`: the body read whole (`arrayBuffer()`, as bench/scale/listing.ts's restJobs());
 * - `stream`: the body read as a stream and dropped: the server and the transport without
 *   the client's 42 MiB buffer (on a VM whose page faults are dear, that buffer's faults are
 *   most of `whole`: the client's own minor faults are reported beside it);
 * - `changed`: a GET after one submit (a new list version: spurrestd fetches the list and
 *   writes the listing again; `whole` and `stream` ask while the list is unchanged).
 * For each also the time to the response headers and spurrestd's CPU ms and minor page
 * faults per request (/proc). One JSON object per line.
 * Usage: bun bench/rest-jobs-ab.ts [--base PATH_TO_OLD_SPUR] [--jobs 10000] [--rounds 9]
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { SPUR_BIN, startSpur } from "./scale/lib/spur-cluster.ts";
import { median, r2 } from "./scale/lib/timing.ts";

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const JOBS = Number(opt("--jobs") ?? 10_000);
const ROUNDS = Number(opt("--rounds") ?? 9);
const BASE = opt("--base");

interface Build {
  name: string;
  port: number;
  pid: number;
}

const freePort = (): Promise<number> =>
  new Promise((done) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });

/** CPU ms and minor faults of a process so far. */
function procStat(pid: number): { cpuMs: number; minflt: number } {
  const f = (readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1] ?? "").split(" ");
  const tick = 1000 / 100; // USER_HZ
  return { cpuMs: (Number(f[11]) + Number(f[12])) * tick, minflt: Number(f[7]) };
}

async function main(): Promise<void> {
  const spur = startSpur();
  const children: number[] = [];
  try {
    await spur.fill(JOBS);
    const tok = spawnSync(SPUR_BIN, ["scontrol", "token", "lifespan=3600"], { encoding: "utf8", env: spur.env }).stdout;
    const headers = { "X-SLURM-USER-TOKEN": /SLURM_JWT=(\S+)/.exec(tok)?.[1] ?? "" };
    const builds: Build[] = [];
    for (const [name, bin] of [["new", SPUR_BIN], ...(BASE === undefined ? [] : [["base", BASE]])] as [string, string][]) {
      const port = await freePort();
      const child = spawn(bin, ["spurrestd", "--conf", spur.conf, "--port", String(port), "--rate-limit", "0"], { stdio: "ignore", detached: true });
      children.push(child.pid ?? 0);
      builds.push({ name, port, pid: child.pid ?? 0 });
    }
    for (const b of builds) {
      for (let i = 0; i < 100 && !(await fetch(`http://127.0.0.1:${b.port}/slurm/v0.0.45/ping/`, { headers }).then((r) => r.ok, () => false)); i++) await Bun.sleep(100);
    }
    const rec = new Map<string, number[]>();
    const put = (k: string, v: number): void => void (rec.get(k) ?? rec.set(k, []).get(k))?.push(v);
    let kept: ArrayBuffer | undefined; // the last body stays alive while the next is read, as in restJobs()
    const get = async (b: Build, mode: string, round: number): Promise<void> => {
      const s0 = procStat(b.pid);
      const c0 = process.resourceUsage().minorPageFault;
      const t0 = performance.now();
      const res = await fetch(`http://127.0.0.1:${b.port}/slurm/v0.0.45/jobs`, { headers });
      const tHead = performance.now();
      let bytes = 0;
      if (mode === "stream") {
        const reader = (res.body as ReadableStream<Uint8Array>).getReader();
        for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.byteLength;
      } else {
        kept = await res.arrayBuffer();
        bytes = kept.byteLength;
      }
      const t1 = performance.now();
      const s1 = procStat(b.pid);
      if (!res.ok) throw new Error(`${b.name}: GET /jobs answered HTTP ${res.status}`);
      if (round === 0) return; // warm-up
      const k = `${mode}|${b.name}`;
      put(`${k}|ms`, t1 - t0);
      put(`${k}|headers_ms`, tHead - t0);
      put(`${k}|restd_cpu_ms`, s1.cpuMs - s0.cpuMs);
      put(`${k}|restd_minflt`, s1.minflt - s0.minflt);
      put(`${k}|client_minflt`, process.resourceUsage().minorPageFault - c0);
      put(`${k}|mib`, bytes / 2 ** 20);
    };
    const submit = JSON.stringify({ spec: { name: "fill", script: "#!/bin/sh\ntrue\n", workDir: "/tmp", hold: true } });
    for (let round = 0; round <= ROUNDS; round++) {
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const b of order) await get(b, "whole", round);
      for (const b of order) await get(b, "stream", round);
      const s = await fetch(`http://127.0.0.1:${spur.ctlPort}/spur.v1.Controller/Submit`, { method: "POST", headers: { "content-type": "application/json" }, body: submit });
      if (!s.ok) throw new Error(`Submit answered HTTP ${s.status}`);
      for (const b of order) await get(b, "changed", round);
    }
    for (const mode of ["whole", "stream", "changed"]) {
      for (const b of builds) {
        const m = (what: string): number => r2(median(rec.get(`${mode}|${b.name}|${what}`) ?? [0]));
        console.log(JSON.stringify({
          metric: `rest_get_jobs_${mode}_ms`, value: m("ms"), unit: "ms", build: b.name, jobs: JOBS, rounds: ROUNDS, response_mib: m("mib"),
          headers_ms: m("headers_ms"), restd_cpu_ms: m("restd_cpu_ms"), restd_minflt: m("restd_minflt"), client_minflt: m("client_minflt"),
        }));
      }
    }
  } finally {
    for (const pid of children) if (pid > 0) process.kill(pid, "SIGTERM");
    spur.down();
  }
}

await main();
