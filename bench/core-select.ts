/**
 * Core-choice benchmark: what choosing CPU ids inside apply() costs per share
 * (sched/plan/core-select.ts) on a big node: 2 sockets × 96 cores × 2 threads
 * (384 CPUs), filled by jobs of 1-16 tasks until full, then emptied and
 * refilled, so each choice sees a fragmented node. Prints select_p50_us and
 * select_p99_us (one share), plus the node shape.
 * Run: bun bench/core-select.ts   (SOCKETS, CORES, THREADS, ROUNDS, SEED override)
 * The box is shared: load1 is printed.
 */
import { loadavg } from "node:os";
import { selectCpuIds, type CpuLayout } from "../src/sched/plan/core-select.ts";
import { createRng } from "../src/lib/rng.ts";

const env = (name: string, dflt: number): number => Number(process.env[name] ?? dflt);
const layout: CpuLayout = { sockets: env("SOCKETS", 2), coresPerSocket: env("CORES", 96), threadsPerCore: env("THREADS", 2), cpus: 0 };
layout.cpus = layout.sockets * layout.coresPerSocket * layout.threadsPerCore;
const ROUNDS = env("ROUNDS", 200);
const rng = createRng(env("SEED", 1));

const times: number[] = [];
const held: number[][] = [];
const taken = new Set<number>();
for (let round = 0; round < ROUNDS; round++) {
  // Free a random third of the jobs, then fill the node again.
  for (let i = held.length - 1; i >= 0; i--) {
    if (rng.next() < 0.33) {
      for (const id of held[i] ?? []) taken.delete(id);
      held.splice(i, 1);
    }
  }
  while (layout.cpus - taken.size > 0) {
    const tasks = rng.int(1, 16);
    const count = Math.min(layout.cpus - taken.size, tasks * rng.int(1, 2));
    const t0 = performance.now();
    const ids = selectCpuIds(layout, taken, {
      count, socketCounts: [], tasks, cpusPerTask: Math.max(1, Math.floor(count / tasks)), ntasksPerSocket: 0, coresPerSocket: 0,
      oneThreadPerCore: rng.next() < 0.2, socketDist: rng.next() < 0.5 ? "block" : "cyclic",
    });
    times.push((performance.now() - t0) * 1000);
    for (const id of ids) taken.add(id);
    held.push(ids);
  }
}
times.sort((a, b) => a - b);
const at = (q: number): number => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
const conditions = { cpus: layout.cpus, sockets: layout.sockets, choices: times.length, load1: Math.round((loadavg()[0] ?? 0) * 100) / 100 };
console.log(JSON.stringify({ metric: "select_p50_us", value: Math.round(at(0.5)), unit: "us", ...conditions }));
console.log(JSON.stringify({ metric: "select_p99_us", value: Math.round(at(0.99)), unit: "us", ...conditions }));
