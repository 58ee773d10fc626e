/**
 * @module bench/scale/mem-heap
 * Issue 16, where a held job's memory goes, in-process: N submit commands (JSON round-tripped,
 * as the controller receives them) applied to a state, then JSC's heap per job (live bytes,
 * capacity, objects, RSS) and what dropping each part of every record frees (env, spec,
 * info's arrays and strings, info). `bun bench/scale/mem-heap.ts N [env]` (env: each job
 * carries this process's environment, as sbatch's --export=ALL does).
 */
import { heapStats } from "bun:jsc";
import { cluster, spec, submit } from "../../tests/unit/sched/builders.ts";

const n = Number(process.argv[2] ?? 10000);
const withEnv = process.argv[3] === "env";
const env: Record<string, string> = {};
if (withEnv) for (const [k, v] of Object.entries(process.env)) env[k] = v ?? "";
const { state, log, run: run0 } = cluster();
const run = (c: Parameters<typeof run0>[0]) => { const r = run0(c); log.length = 0; return r; };
const measure = () => {
  Bun.gc(true);
  const h = heapStats();
  return { heap: h.heapSize, cap: h.heapCapacity, extra: h.extraMemorySize, objects: h.objectCount, rss: process.memoryUsage().rss };
};
const before = measure();
for (let i = 0; i < n; i++) {
  const r = run(JSON.parse(JSON.stringify(submit(spec({ hold: true, env: withEnv ? { ...env } : {}, submitLine: "sbatch --hold x.sh", workDir: "/tmp" }), 10 + i))));
  if (r.error !== "") throw new Error(JSON.stringify(r));
}
const after = measure();
const h = heapStats();
const top = Object.entries(h.objectTypeCounts).sort((a, b) => b[1] - a[1]).slice(0, 15);
console.log(JSON.stringify({ jobs: state.jobs.size, heap_per_job: Math.round((after.heap - before.heap) / n), cap_per_job: Math.round((after.cap - before.cap) / n), extra_per_job: Math.round((after.extra - before.extra) / n), objects_per_job: Math.round((after.objects - before.objects) / n), rss_per_job: Math.round((after.rss - before.rss) / n), top }));
const drop = (name: string, f: (j: any) => void) => {
  Bun.gc(true);
  const a = heapStats().heapSize;
  for (const j of state.jobs.values()) f(j);
  Bun.gc(true);
  console.log(name, Math.round((a - heapStats().heapSize) / n));
};
drop("spec.env", (j) => { j.spec.env = null; });
drop("spec.script", (j) => { j.spec.script = null; });
drop("spec rest", (j) => { j.spec = null; });
drop("info arrays", (j) => { j.info.alloc = j.info.steps = j.info.stateFlags = null; });
drop("info strings", (j) => { for (const k in j.info) if (typeof j.info[k] === "string") j.info[k] = null; });
drop("info rest", (j) => { j.info = null; });
drop("record rest", (j) => { j.arrayPending = null; });
drop("map", (j) => { state.jobs.delete(j.info?.jobId ?? 0); });
state.jobs.clear();
drop("clear", () => {});
