/** @module bench/scale/mem-restore
 * Issue 16: heap per held job after a snapshot restore (bun bench/scale/mem-restore.ts N), to set beside mem-heap.ts's fresh submissions. */
import { heapStats } from "bun:jsc";
import { cluster, spec, submit } from "../../tests/unit/sched/builders.ts";
import { encodeSnapshot, restoreSnapshot } from "../../src/ctld/state-snapshot.ts";
const n = Number(process.argv[2] ?? 50000);
const heap = () => { Bun.gc(true); return heapStats().heapSize; };
let image: Uint8Array;
{
  const { state, run } = cluster();
  for (let i = 0; i < n; i++) run(JSON.parse(JSON.stringify(submit(spec({ hold: true, submitLine: "sbatch --hold x.sh" }), 10 + i))));
  image = encodeSnapshot(state, 1);
}
const { state: fresh } = cluster();
const h0 = heap();
restoreSnapshot(fresh, image);
console.log(JSON.stringify({ jobs: fresh.jobs.size, image_bytes_per_job: Math.round(image.length / n), restored_heap_per_job: Math.round((heap() - h0) / n) }));
