/**
 * @module bench/sched-held
 * Issue 16: what one scheduling pass costs the leader's main thread when the queue is mostly
 * held jobs (sbatch --hold: priority 0). The pass is run as the controller runs it: through
 * ctld/sched-loop's createSchedLoop (schedule(), then the loop's own bookkeeping of reasons,
 * priorities and plan), on a state of NODES nodes (95% busy), NORMAL ordinary pending jobs,
 * HELD held ones and BEGIN ones whose begin time is in the future. The start decisions are
 * never committed, so every pass does the same work (a steady queue). Also times a squeue-like
 * read of every held job's reason and priority through the loop (what the views ask).
 * Two loops run on the same state, passes interleaved: path=omit_held (the controller's: held
 * jobs and those waiting for their begin time left out of the queue, plan/held-jobs.ts and
 * plan/begin-jobs.ts) and path=queue_held (both queued like the others: the path before issue
 * 16's changes). Also times reading every future-begin job's reason and priority (which the
 * controller's path computes on demand) and counts the pending jobs whose reason or priority
 * differ between the two paths (expected 0).
 * Prints JSON lines {metric, value, unit, ...conditions}.
 * Run: bun bench/sched-held.ts   (NODES=1000 NORMAL=300 HELD=100000 BEGIN=0 PASSES=15 SEED=1 ONLY=)
 */
import { loadavg } from "node:os";
import { buildBigState } from "./sched-state.ts";
import { createSchedLoop } from "../src/ctld/sched-loop.ts";
import { newSchedCounters } from "../src/ctld/sched-stats.ts";
import type { Clock, TimerHandle } from "../src/lib/clock.ts";
import type { ClusterState, JobRecord } from "../src/sched/model/types.ts";

const env = (name: string, dflt: number): number => Number(process.env[name] ?? dflt);
const NODES = env("NODES", 1000);
const NORMAL = env("NORMAL", 300);
const HELD = env("HELD", 100_000);
const BEGIN = env("BEGIN", 0);
const PASSES = env("PASSES", 15);
const WARMUP = 3;
const SEED = env("SEED", 1);
/** One path only (omit_held or queue_held), e.g. under a profiler. */
const ONLY = process.env.ONLY ?? "";
const NOW = 1_800_000_000;

const out = (metric: string, value: number, unit: string, extra: Record<string, unknown> = {}): void => {
  console.log(JSON.stringify({ metric, value: Math.round(value * 1000) / 1000, unit, ...extra }));
};
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0;
};

/** Clones of the state's pending jobs, turned into held (priority 0) or future-begin ones. */
function addClones(state: ClusterState, count: number, make: (job: JobRecord) => void): void {
  const templates = [...state.jobs.values()].filter((j) => j.info.state === "PENDING").slice(0, 64);
  for (let i = 0; i < count; i++) {
    const base = templates[i % templates.length] as JobRecord;
    const jobId = state.nextJobId++;
    const job: JobRecord = { ...base, info: { ...base.info, jobId }, sequence: state.nextSequence++, arrayPending: [] };
    make(job);
    state.jobs.set(jobId, job);
  }
}

/** A clock whose one timer is fired by hand: the bench runs a pass exactly when it times one. */
function handClock(): { clock: Clock; fire(): void } {
  let due: (() => void) | undefined;
  const handle: TimerHandle = { id: 1 };
  const clock: Clock = {
    now: () => NOW * 1000,
    monotonicMs: () => performance.now(),
    setTimeout: (fn) => ((due = fn), handle),
    setInterval: () => handle,
    setImmediate: () => handle,
    clear: () => (due = undefined),
  };
  return { clock, fire: () => { const fn = due; due = undefined; fn?.(); } };
}

async function main(): Promise<void> {
  const state = buildBigState({ nodes: NODES, pending: NORMAL, busyFraction: 0.95, seed: SEED }, NOW);
  addClones(state, HELD, (j) => Object.assign(j.info, { priority: 0, heldByAdmin: false, reason: "JobHeldUser" }));
  addClones(state, BEGIN, (j) => Object.assign(j.info, { eligibleTime: NOW + 3600, reason: "BeginTime" }));
  const paths = (["omit_held", "queue_held"] as const).filter((p) => ONLY === "" || p === ONLY).map((path) => {
    const { clock, fire } = handClock();
    const counted = { viewsChanged: 0, started: 0, wall: [] as number[], cpu: [] as number[] };
    const loop = createSchedLoop({
      state, clock, now: () => NOW, logger: { info() {}, warn() {}, error() {} } as never, counters: newSchedCounters(NOW),
      acting: () => true, diskFull: () => false, executeInternal: () => {}, viewsChanged: () => void counted.viewsChanged++,
      execute: async (c) => ((counted.started = c.type === "startJobs" ? c.decisions.length : 0), { ids: [], error: "" }) as never,
      queueHeld: path === "queue_held", queueBegin: path === "queue_held",
    });
    return { path, loop, fire, counted };
  });
  // the two paths alternate pass by pass, so that the shared machine's load falls on both alike
  for (let i = 0; i < WARMUP + PASSES; i++) {
    for (const { loop, fire, counted } of i % 2 === 0 ? paths : [...paths].reverse()) {
      loop.kick();
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      fire();
      const w1 = performance.now();
      const c1 = process.cpuUsage(c0);
      await new Promise((r) => setImmediate(r)); // the start command "settles": the next pass may run
      if (i < WARMUP) continue;
      counted.wall.push(w1 - w0);
      counted.cpu.push((c1.user + c1.system) / 1000);
    }
  }
  const held = [...state.jobs.values()].filter((j) => j.info.state === "PENDING" && j.info.priority === 0);
  const waiting = [...state.jobs.values()].filter((j) => j.info.state === "PENDING" && j.info.priority !== 0 && j.info.eligibleTime > NOW);
  for (const { path, loop, counted } of paths) {
    const r0 = performance.now();
    let shown = 0;
    for (const j of held) if (loop.reasonOf(j.info.jobId) === "JobHeldUser" && (loop.priorityOf(j.info.jobId)?.priority ?? 0) === 0) shown++;
    const readMs = performance.now() - r0;
    const cond = { path, nodes: NODES, normal: NORMAL, held: HELD, begin: BEGIN, passes: PASSES, seed: SEED, started_per_pass: counted.started, load1: loadavg()[0] };
    out("held_pass_p50_ms", pct(counted.wall, 50), "ms", cond);
    out("held_pass_max_ms", pct(counted.wall, 100), "ms", cond);
    out("held_pass_cpu_p50_ms", pct(counted.cpu, 50), "ms", cond);
    out("held_views_changed", counted.viewsChanged, "passes", { ...cond, note: `of ${WARMUP + PASSES} passes, this many invalidated the listing cache` });
    out("held_reason_read_ms", readMs, "ms", { ...cond, jobs: held.length, shown_held_priority0: shown });
    const b0 = performance.now();
    let shownBegin = 0;
    for (const j of waiting) if (loop.reasonOf(j.info.jobId) === "BeginTime" && (loop.priorityOf(j.info.jobId)?.priority ?? 0) > 0) shownBegin++;
    out("begin_reason_read_ms", performance.now() - b0, "ms", { ...cond, jobs: waiting.length, shown_begin_priority: shownBegin });
  }
  if (paths.length === 2) {
    const [a, b] = paths.map((p) => p.loop);
    let differ = 0;
    for (const j of state.jobs.values()) {
      const id = j.info.jobId;
      if (j.info.state !== "PENDING") continue;
      // a held job has no priority to explain on the controller's path (sprio leaves it out), 0 on the reference's
      const held = j.info.priority === 0 ? 0 : undefined;
      if (a?.reasonOf(id) !== b?.reasonOf(id) || (a?.priorityOf(id)?.priority ?? held) !== (b?.priorityOf(id)?.priority ?? held)) differ++;
    }
    out("paths_differ_jobs", differ, "jobs", { nodes: NODES, normal: NORMAL, held: HELD, begin: BEGIN, note: "pending jobs whose reason or priority differ between the paths (0 expected)" });
  }
}

await main();
