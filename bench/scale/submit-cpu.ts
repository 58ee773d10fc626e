/**
 * @module bench/scale/submit-cpu
 * The controller's CPU per acknowledged Submit and the acknowledged rate, at 8 and 64 in
 * flight, for one or more builds side by side (issue 16): each build gets a cluster of its
 * own (single controller, or 3 replicas with SUBMIT_CPU_REPLICAS=3), and the rounds alternate
 * between them so that the shared machine's load falls on all alike. CPU is the serving
 * controller's utime+stime from /proc/PID/stat (the pid Ping names) over the round.
 * Usage: bun bench/scale/submit-cpu.ts [BIN ...] (a compiled binary or a tree's src/main.ts; default dist/spur)
 * Env: SUBMIT_CPU_SECONDS (3) per point, SUBMIT_CPU_ROUNDS (3), SUBMIT_CPU_REPLICAS (1).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { BIN, drive, leaderOf, post, submitTo, up, type Cluster } from "./replica-cluster.ts";

const SECONDS = Number(process.env.SUBMIT_CPU_SECONDS ?? 3);
const ROUNDS = Number(process.env.SUBMIT_CPU_ROUNDS ?? 3);
const REPLICAS = Number(process.env.SUBMIT_CPU_REPLICAS ?? 1);
const IN_FLIGHT = (process.env.SUBMIT_CPU_IN_FLIGHT ?? "8,64").split(",").map(Number);
const TICK_MS = 1000 / 100;

function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

const bins = process.argv.slice(2);
const builds = bins.length > 0 ? bins.map((b) => resolve(b)) : [BIN];
const clusters: { bin: string; c: Cluster; url: string; pid: number }[] = [];
try {
  for (const bin of builds) {
    const c = up(REPLICAS, [], bin);
    const url = c.urls.get(await leaderOf(c)) as string;
    const pid = ((await (await post(url, "Ping", {})).json()) as { pid: number }).pid;
    await drive(8, 1, () => submitTo(url));
    clusters.push({ bin, c, url, pid });
  }
  const results = new Map<string, { rate: number[]; cpu: number[] }>();
  for (let r = 0; r < ROUNDS; r++) {
    for (const n of IN_FLIGHT) {
      for (const k of clusters) {
        const before = cpuMs(k.pid);
        const load = await drive(n, SECONDS, () => submitTo(k.url));
        const cpu = cpuMs(k.pid) - before;
        const key = `${k.bin} @${n}`;
        const e = results.get(key) ?? { rate: [], cpu: [] };
        e.rate.push(load.ok / load.seconds);
        e.cpu.push(load.ok > 0 ? cpu / load.ok : 0);
        results.set(key, e);
        console.log(JSON.stringify({ round: r, bin: k.bin, pid: k.pid, in_flight: n, replicas: REPLICAS, ok: load.ok, failed: load.failed, per_s: Math.round(load.ok / load.seconds), cpu_ms_per_submit: Number((cpu / Math.max(1, load.ok)).toFixed(3)) }));
      }
    }
  }
  const med = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  for (const [key, e] of results) console.log(`${key}: median ${Math.round(med(e.rate))}/s, ${med(e.cpu).toFixed(3)} ms CPU/submit (replicas ${REPLICAS})`);
} finally {
  for (const k of clusters) k.c.down();
}
