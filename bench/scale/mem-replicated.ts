/**
 * @module bench/scale/mem-replicated
 * Issue 16, controller memory with 3 replicated controllers: each replica's RSS after
 * filling N held jobs through the leader (64 in flight), its snapshot worker process's included. MEM_SIZES ("10000,100000"),
 * MEM_EXTRA_CONF (spur.conf lines, ";"-separated, e.g. SpurRaftSnapshotWorker=no),
 * SCALE_BIN (another build).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { leaderOf, post, submitBody, up } from "./replica-cluster.ts";
import { rssWithChildrenMiB } from "./lib/spur-cluster.ts";

const sizes = (process.env.MEM_SIZES ?? "10000,100000").split(",").map(Number);
const extra = (process.env.MEM_EXTRA_CONF ?? "").split(";").filter((l) => l !== "");
const c = up(3, extra);
const rss = (): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const f of readdirSync(join(c.dir, "pids")).filter((n) => n.startsWith("spurctld"))) {
    // with its snapshot worker process while one builds an image (the replica's memory too)
    out[f.replace(/\.pid$/, "")] = Math.round(rssWithChildrenMiB(Number(readFileSync(join(c.dir, "pids", f), "utf8"))));
  }
  return out;
};
try {
  let leader = await leaderOf(c);
  let url = c.urls.get(leader) as string;
  console.log(JSON.stringify({ jobs: 0, leader, rss_mib: rss() }));
  let done = 0;
  for (const n of sizes) {
    const t0 = performance.now();
    while (done < n) {
      const batch = Math.min(64, n - done);
      const answers = await Promise.all(Array.from({ length: batch }, () => post(url, "Submit", submitBody(), 30_000)));
      const ok = answers.filter((a) => a.ok).length;
      done += ok;
      if (ok < batch) {
        // a failover (loaded machine): find the new leader and go on
        console.error(`failover: ${batch - ok} submissions refused`);
        leader = await leaderOf(c);
        url = c.urls.get(leader) as string;
      }
    }
    const fillS = (performance.now() - t0) / 1000;
    // RSS settles as freed memory goes back to the system: sampled 5, 15 and 30 s after the fill
    const samples: Record<string, number>[] = [];
    for (const wait of [5000, 10000, 15000]) {
      await Bun.sleep(wait);
      samples.push(rss());
    }
    console.log(JSON.stringify({ jobs: n, leader, rss_mib_5_15_30s: samples, fill_s: Math.round(fillS) }));
  }
} finally {
  c.down();
}
