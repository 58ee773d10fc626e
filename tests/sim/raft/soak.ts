/**
 * @module sim/raft/soak
 * Long runs of the Raft simulator outside the test suite:
 *   bun tests/sim/raft/soak.ts --seeds 100000 [--from 1] [--replicas 3|5]
 * Prints progress and a JSON summary; on the first failure prints the seed's replay
 * command and its event transcript, and exits 1.
 */
import { runSeed } from "./run.ts";

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const v = at >= 0 ? Number(process.argv[at + 1]) : Number.NaN;
  return Number.isFinite(v) ? v : fallback;
}

const seeds = arg("seeds", 10_000);
const from = arg("from", 1);
const replicas = arg("replicas", 0);
const started = performance.now();
let events = 0;
let worstHeal = 0;
for (let seed = from; seed < from + seeds; seed++) {
  try {
    const r = runSeed(seed, replicas > 0 ? { replicaCount: replicas } : {});
    events += r.events;
    worstHeal = Math.max(worstHeal, r.leaderAfterHealTicks);
  } catch {
    try {
      runSeed(seed, { ...(replicas > 0 ? { replicaCount: replicas } : {}), trace: true });
    } catch (e) {
      console.error(e instanceof Error ? e.message : e);
    }
    console.error(`replay: SEED=${seed} bun --bun vitest run tests/unit/raft/sim.test.ts`);
    process.exit(1);
  }
  if ((seed - from + 1) % 1000 === 0) console.error(`${seed - from + 1} seeds ok`);
}
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ seeds, from, seconds: Number(seconds.toFixed(1)), seedsPerSecond: Number((seeds / seconds).toFixed(1)), events, worstLeaderAfterHealTicks: worstHeal }));
