/**
 * `scontrol show job N` / `squeue -j N` with a big queue: what one lookup costs on the
 * controller. Before: the clients fetched every job (ListJobs without ids) and filtered
 * themselves, so the controller built and serialised every job's view. After: they send
 * the id and the controller finds the job through its index (sched/model/job-table).
 *   bun bench/job-lookup.ts [pending=100000]
 */
import { buildBigState } from "./sched-state.ts";
import { listJobViews } from "../src/ctld/views.ts";
import type { Controller } from "../src/ctld/controller.ts";

const pending = Number(process.argv[2] ?? 100_000);
const now = Date.now() / 1000;
const state = buildBigState({ nodes: 1000, pending, busyFraction: 0.8, seed: 1 }, now);
const c = { state, reasonOf: () => undefined, priorityOf: () => undefined, plannedStart: () => undefined } as unknown as Controller;
const ids = [...state.jobs.keys()];
const target = ids[Math.floor(ids.length / 2)] as number;

function time(label: string, fn: () => unknown, rounds: number): void {
  fn();
  const t0 = performance.now();
  let bytes = 0;
  for (let i = 0; i < rounds; i++) bytes = JSON.stringify(fn()).length;
  const ms = (performance.now() - t0) / rounds;
  console.log(`${label.padEnd(44)} ${ms.toFixed(3).padStart(10)} ms/lookup  ${bytes} bytes answered`);
}

console.log(`${state.jobs.size} jobs in the table`);
time("whole queue (what the clients asked before)", () => ({ jobs: listJobViews(c, undefined, now) }), 3);
time("by id (what they ask now)", () => ({ jobs: listJobViews(c, { jobIds: [target] } as never, now) }), 200);
const plain = { ...c, state: { ...state, jobs: new Map(state.jobs) } } as unknown as Controller;
time("by id over a plain Map (a walk, as before)", () => ({ jobs: listJobViews(plain, { jobIds: [target] } as never, now) }), 20);
