/**
 * @module bench/scale/mem-probe
 * Issue 16, controller memory alone: one spurctld (`spur up`, 4 nodes), its RSS after filling
 * N held jobs (Submit RPC, 64 in flight), 3 s and 13 s after the fill, no listing run (the
 * listing section's figure includes its caches). MEM_SIZES ("10000,100000"); MEM_LIST=1: then
 * the RSS after squeue and after squeue --json at the last size.
 */
import { spawnSync } from "node:child_process";
import { startSpur } from "./lib/spur-cluster.ts";
const sizes = (process.env.MEM_SIZES ?? "10000,100000").split(",").map(Number);
const spur = startSpur();
try {
  console.log(JSON.stringify({ jobs: 0, rss_mib: spur.ctldRssMiB() }));
  let done = 0;
  for (const n of sizes) {
    const t0 = performance.now();
    await spur.fill(n - done);
    done = n;
    await Bun.sleep(3000);
    const rss = spur.ctldRssMiB();
    await Bun.sleep(10000);
    const heap = await spur.ctldHeapMiB();
    console.log(JSON.stringify({ jobs: n, rss_mib: rss, rss_mib_10s_later: spur.ctldRssMiB(), heap_used_mib: heap?.used, heap_capacity_mib: heap?.capacity, heap_external_mib: heap?.external, fill_s: Math.round(performance.now() - t0) / 1000 }));
  }
  // MEM_LIST=1: then what listings add (their caches and garbage): squeue, squeue --json, each settled 10 s
  if (process.env.MEM_LIST === "1") {
    for (const argv of [["squeue"], ["squeue", "--json"]]) {
      spawnSync(spur.bin(argv[0] as string), argv.slice(1), { env: spur.env, stdio: "ignore" });
      const rss = spur.ctldRssMiB();
      await Bun.sleep(10000);
      console.log(JSON.stringify({ after: argv.join(" "), jobs: done, rss_mib: rss, rss_mib_10s_later: spur.ctldRssMiB() }));
    }
  }
} finally {
  spur.down();
}
