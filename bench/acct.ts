/**
 * Accounting benchmark. Prints JSON lines (metric, value, unit, conditions):
 *  1. fair tree (usage of every job decayed at `now`, LevelFS ranking) over
 *     ACCOUNTS accounts and 50 users on the scheduler bench's big state:
 *     fairtree_p50_ms;
 *  2. one full scheduling pass with AccountingStorageEnforce=limits and
 *     limits on every association and on QOS normal, against the same pass
 *     without enforcement: pass_limits_p50_ms, pass_nolimits_p50_ms.
 * Run: bun bench/acct.ts   (NODES, PENDING, ACCOUNTS, PASSES, SEED override)
 * The box is shared: load1 is printed.
 */
import { loadavg } from "node:os";
import { buildBigState } from "./sched-state.ts";
import { schedule } from "../src/sched/plan/schedule.ts";
import { fairTree } from "../src/sched/acct/fair-tree.ts";
import { apply } from "../src/sched/model/apply.ts";
import type { AcctRequest } from "../src/sched/acct/apply-acct.ts";

const env = (name: string, dflt: number): number => Number(process.env[name] ?? dflt);
const NODES = env("NODES", 2000);
const PENDING = env("PENDING", 20_000);
const ACCOUNTS = env("ACCOUNTS", 20);
const PASSES = env("PASSES", 7);
const SEED = env("SEED", 1);
const ROOT = { uid: 0, gid: 0, user: "root", group: "root" };

const out = (metric: string, value: number, unit: string, extra: Record<string, unknown> = {}): void => {
  console.log(JSON.stringify({ metric, value: Math.round(value * 1000) / 1000, unit, ...extra }));
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const now = 1_800_000_000;
const state = buildBigState({ nodes: NODES, pending: PENDING, busyFraction: 0.95, seed: SEED }, now);
const run = (request: Partial<AcctRequest> & Pick<AcctRequest, "action" | "entity">): void => {
  const r = apply(state, { v: 1, type: "acct", at: now, by: ROOT, request: { names: [], where: {}, set: {}, ...request } });
  if (r.error !== "") throw new Error(r.error);
};
for (let a = 0; a < ACCOUNTS; a++) run({ action: "add", entity: "account", names: [`a${a}`], set: { grpjobs: "5000", grptres: "cpu=200000" } });
for (let u = 0; u < 50; u++) run({ action: "add", entity: "user", names: [`u${u}`], set: { account: `a${u % ACCOUNTS}`, maxjobs: "400" } });
run({ action: "modify", entity: "qos", names: ["normal"], set: { maxjobsperuser: "500", grptres: "gres/gpu=100000" } });
const conditions = { nodes: NODES, pending: PENDING, accounts: ACCOUNTS, users: 50, jobs: state.jobs.size, load1: loadavg()[0] };

const tree: number[] = [];
for (let i = 0; i < PASSES; i++) {
  const t0 = performance.now();
  fairTree(state, now + i, 7 * 86400);
  tree.push(performance.now() - t0);
}
out("fairtree_p50_ms", median(tree), "ms", conditions);

for (const enforce of [["limits"], []]) {
  state.config.acctEnforce = enforce;
  const times: number[] = [];
  for (let i = 0; i < PASSES; i++) {
    const t0 = performance.now();
    schedule(state, now + i);
    times.push(performance.now() - t0);
  }
  out(enforce.length > 0 ? "pass_limits_p50_ms" : "pass_nolimits_p50_ms", median(times), "ms", conditions);
}
