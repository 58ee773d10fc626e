/**
 * @module bench/scale/mem-ab
 * Issue 16, controller memory of two (or more) builds side by side: for each round and each
 * binary in turn (alternating, so drift on a shared machine falls on both), `spur up` of that
 * binary (one controller, 4 agents), the controller's resident memory split into anonymous and
 * file-backed (/proc/PID/smaps_rollup) with an empty queue 3 s after start, then after filling
 * N held jobs (Submit RPC, 64 in flight) 3 s and 13 s later; medians per binary at the end.
 * `bun bench/scale/mem-ab.ts BIN_A BIN_B ... ` with MEM_JOBS (10000) and MEM_ROUNDS (3).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { startSpur } from "./lib/spur-cluster.ts";

const bins = process.argv.slice(2).map((b) => resolve(b));
const jobs = Number(process.env.MEM_JOBS ?? 10000);
const rounds = Number(process.env.MEM_ROUNDS ?? 3);

/** Rss, anonymous and file-backed MiB of one process. */
function split(pid: number): { rss: number; anon: number; file: number } {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  const mib = (v: number) => Math.round((v / 1024) * 10) / 10;
  return { rss: mib(kb("Rss")), anon: mib(kb("Anonymous")), file: mib(kb("Rss") - kb("Anonymous")) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const results = new Map<string, Record<string, number[]>>();
for (let r = 0; r < rounds; r++) {
  for (const bin of bins) {
    const spur = startSpur(bin);
    try {
      await Bun.sleep(3000);
      const sample: Record<string, number> = {};
      const take = (tag: string) => { const s = split(spur.ctldPid()); sample[`${tag}_rss`] = s.rss; sample[`${tag}_anon`] = s.anon; sample[`${tag}_file`] = s.file; };
      take("empty");
      await spur.fill(jobs);
      await Bun.sleep(3000);
      take("filled_3s");
      await Bun.sleep(10000);
      take("filled_13s");
      console.log(JSON.stringify({ round: r, bin, jobs, ...sample }));
      const acc = results.get(bin) ?? {};
      for (const [k, v] of Object.entries(sample)) (acc[k] ??= []).push(v);
      results.set(bin, acc);
    } finally {
      spur.down();
    }
  }
}
for (const [bin, acc] of results) {
  console.log(JSON.stringify({ median_of: rounds, bin, jobs, ...Object.fromEntries(Object.entries(acc).map(([k, v]) => [k, median(v)])) }));
}
