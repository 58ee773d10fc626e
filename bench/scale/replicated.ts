/**
 * @module bench/scale/replicated
 * Submissions through Spur's replicated log beside a 3-member etcd's puts, and the cost of
 * a 100k-job snapshot. Figures (JSON lines through `emit`):
 *  - replicated_submits_per_s at 8 and 64 requests in flight (3 controllers, fsync on every
 *    replica, acknowledged = durable on a quorum and applied on the leader), with the
 *    etcd anchor's puts/s measured the same way in the same run (`anchor`, `vs_anchor`);
 *    each with the p50/p99 latency of an acknowledged call;
 *  - snapshot_block_ms (event-loop time the snapshot takes from the replica), snapshot_bytes_per_job,
 *    restore_ms at --jobs jobs (default 100k), in process.
 * Env: SCALE_SECONDS (default 5) per throughput point; SCALE_JOBS (default 100000).
 * Run alone: bun bench/scale/replicated.ts (needs dist/spur: bun scripts/build-binary.ts).
 */
import { drive, leaderOf, pct, round, submitTo, up } from "./replica-cluster.ts";
import { etcdPut, startEtcd } from "./etcd-anchor.ts";
import { snapshotFigures } from "./snapshot-figures.ts";

const SECONDS = Number(process.env.SCALE_SECONDS ?? 5);
const JOBS = Number(process.env.SCALE_JOBS ?? 100_000);
const IN_FLIGHT = [8, 64];

type Emit = (o: object) => void;

async function etcdRates(): Promise<Map<number, { rate: number; p50: number; p99: number }>> {
  const out = new Map<number, { rate: number; p50: number; p99: number }>();
  const etcd = await startEtcd();
  if (etcd === undefined) return out;
  try {
    await drive(8, 1, () => etcdPut(etcd.leaderUrl)); // warm-up
    for (const n of IN_FLIGHT) {
      const load = await drive(n, SECONDS, () => etcdPut(etcd.leaderUrl));
      out.set(n, { rate: load.ok / load.seconds, p50: pct(load.latencies, 50), p99: pct(load.latencies, 99) });
    }
  } finally {
    await etcd.stop();
  }
  return out;
}

export async function run(opts: { slurm: boolean; emit: Emit }): Promise<void> {
  const anchor = await etcdRates();
  const c = up(3);
  try {
    const url = c.urls.get(await leaderOf(c)) as string;
    await drive(8, 1, () => submitTo(url)); // warm-up (JIT, connections)
    for (const n of IN_FLIGHT) {
      const load = await drive(n, SECONDS, () => submitTo(url));
      const rate = load.ok / load.seconds;
      const a = anchor.get(n);
      opts.emit({
        metric: "replicated_submits_per_s", value: round(rate), unit: "submits/s", replicas: 3, in_flight: n, seconds: round(load.seconds),
        failed: load.failed, p50_ms: round(pct(load.latencies, 50)), p99_ms: round(pct(load.latencies, 99)),
        ...(a === undefined ? {} : { anchor: round(a.rate), anchor_name: "etcd 3.4 x3 puts/s (1 KB, JSON gateway)", vs_anchor: round(rate / a.rate, 2), anchor_p50_ms: round(a.p50), anchor_p99_ms: round(a.p99) }),
      });
    }
  } finally {
    c.down();
  }
  if (JOBS > 0) await snapshotFigures(JOBS, opts.emit);
}

if (import.meta.main) await run({ slurm: process.argv.includes("--slurm"), emit: (o) => console.log(JSON.stringify(o)) });
