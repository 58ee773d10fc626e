/**
 * @module sched/sim/replay
 * Event-driven replay of a workload through the real controller core on a
 * virtual clock: submissions and job ends become the same commands the
 * controller logs (submit, jobEnded, startJobs) and go through apply(); after
 * the events of each instant, one schedule() pass decides starts. Nothing here
 * reads a clock except the optional wall-clock port used for the speed figure.
 * Finished records are dropped once measured, as MinJobAge would purge them.
 */
import { parseConf } from "../../compat/conf/slurm-conf.ts";
import { apply } from "../model/apply.ts";
import { createState } from "../model/state.ts";
import { emptyJobSpec } from "../model/records.ts";
import type { ClusterState } from "../model/types.ts";
import { schedule } from "../plan/schedule.ts";
import type { WorkloadJob } from "./swf.ts";
import { assert } from "../../lib/assert.ts";

export interface SimCluster {
  nodes: number;
  cpusPerNode: number;
}

export interface SimOptions {
  scheduler: "fcfs" | "backfill";
  /** Extra slurm.conf lines (e.g. SchedulerParameters=...). */
  extraConf?: string;
  /** Wall clock in ms, only for simSecPerWallSec. */
  clockMs?: () => number;
}

export interface SimResult {
  scheduler: string;
  jobs: number;
  /** Jobs that ask for more processors than the machine has (never submitted). */
  tooBig: number;
  utilization: number;
  meanWaitSec: number;
  meanBoundedSlowdown: number;
  makespanSec: number;
  passes: number;
  backfilled: number;
  wallMs: number;
  simSecPerWallSec: number;
}

/** Bounded slowdown threshold (seconds), the usual 10 s. */
export const BSLD_THRESHOLD_SEC = 10;

function simConf(c: SimCluster, o: SimOptions): string {
  const type = o.scheduler === "fcfs" ? "sched/builtin" : "sched/backfill";
  return [
    "ClusterName=sim",
    `SchedulerType=${type}`,
    "DefMemPerCPU=100",
    o.extraConf ?? (o.scheduler === "backfill" ? "SchedulerParameters=bf_job_part_count_reserve=1" : ""),
    `NodeName=s[1-${c.nodes}] CPUs=${c.cpusPerNode} RealMemory=${c.cpusPerNode * 100}`,
    `PartitionName=all Nodes=s[1-${c.nodes}] Default=YES MaxTime=INFINITE`,
    "",
  ].join("\n");
}

/** A min-heap of (time, job id) for job ends. */
class EndQueue {
  private readonly items: [number, number][] = [];
  get size(): number {
    return this.items.length;
  }
  peek(): number {
    return this.items[0]?.[0] ?? Number.POSITIVE_INFINITY;
  }
  push(t: number, jobId: number): void {
    const h = this.items;
    h.push([t, jobId]);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(h[i] as [number, number], h[p] as [number, number])) break;
      [h[i], h[p]] = [h[p] as [number, number], h[i] as [number, number]];
      i = p;
    }
  }
  pop(): [number, number] | undefined {
    const h = this.items;
    const top = h[0];
    const last = h.pop();
    if (top === undefined || last === undefined || h.length === 0) return top;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && less(h[l] as [number, number], h[m] as [number, number])) m = l;
      if (r < h.length && less(h[r] as [number, number], h[m] as [number, number])) m = r;
      if (m === i) return top;
      [h[i], h[m]] = [h[m] as [number, number], h[i] as [number, number]];
      i = m;
    }
  }
}

const less = (a: [number, number], b: [number, number]): boolean => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

function newState(c: SimCluster, o: SimOptions): ClusterState {
  const parsed = parseConf(simConf(c, o));
  assert(parsed.ok, "simulator configuration parses");
  const made = createState(parsed.value);
  assert(made.ok, "simulator configuration builds a state");
  const state = made.value;
  for (const node of [...state.nodes.values()]) {
    apply(state, { v: 1, type: "registerNode", at: 0, node: { ...node.info, addr: "127.0.0.1" }, runningJobIds: [] });
  }
  return state;
}

interface Tracked {
  w: WorkloadJob;
  startSec: number;
}

export function replay(workload: readonly WorkloadJob[], cluster: SimCluster, o: SimOptions): SimResult {
  const clock = o.clockMs ?? (() => 0);
  const wall0 = clock();
  const state = newState(cluster, o);
  const procs = cluster.nodes * cluster.cpusPerNode;
  const fits = workload.filter((w) => w.procs <= procs);
  const byId = new Map<number, Tracked>();
  const ends = new EndQueue();
  let next = 0;
  let passes = 0;
  let backfilled = 0;
  let waitSum = 0;
  let bsldSum = 0;
  let busyProcSec = 0;
  let done = 0;
  const t0 = fits[0]?.submitSec ?? 0;
  let lastEnd = t0;
  while (next < fits.length || ends.size > 0) {
    const nextSubmit = next < fits.length ? (fits[next] as WorkloadJob).submitSec : Number.POSITIVE_INFINITY;
    const now = Math.min(nextSubmit, ends.peek());
    while (ends.size > 0 && ends.peek() === now) {
      const [, jobId] = ends.pop() as [number, number];
      const t = byId.get(jobId) as Tracked;
      apply(state, { v: 1, type: "jobEnded", at: now, jobId, exitCode: 0, exitSignal: 0, outcome: "" });
      const wait = t.startSec - t.w.submitSec;
      const run = now - t.startSec;
      waitSum += wait;
      bsldSum += Math.max(1, (wait + run) / Math.max(run, BSLD_THRESHOLD_SEC));
      busyProcSec += run * t.w.procs;
      lastEnd = Math.max(lastEnd, now);
      done++;
      state.jobs.delete(jobId);
      byId.delete(jobId);
    }
    while (next < fits.length && (fits[next] as WorkloadJob).submitSec === now) {
      const w = fits[next++] as WorkloadJob;
      const nodesMin = Math.ceil(w.procs / cluster.cpusPerNode);
      const spec = { ...emptyJobSpec(), name: `swf${w.id}`, script: "#!/bin/sh\n", workDir: "/tmp", ntasks: w.procs, nodesMin, nodesMax: nodesMin, timeLimitMin: Math.max(1, Math.ceil(w.reqTimeSec / 60)) };
      const r = apply(state, { v: 1, type: "submit", at: now, spec, by: { uid: 1000 + w.user, gid: 1000, user: `u${w.user}`, group: "users" }, priority: 0 });
      assert(r.error === "", `trace job ${w.id} is accepted: ${r.error}`);
      byId.set(r.ids[0] as number, { w, startSec: -1 });
    }
    const result = schedule(state, now);
    passes++;
    backfilled += result.stats.backfilled;
    if (result.decisions.length === 0) continue;
    const started = apply(state, { v: 1, type: "startJobs", at: now, decisions: result.decisions });
    for (const jobId of started.ids) {
      const t = byId.get(jobId);
      assert(t !== undefined, `started job ${jobId} is tracked`);
      t.startSec = now;
      const limitSec = Math.max(1, Math.ceil(t.w.reqTimeSec / 60)) * 60;
      ends.push(now + Math.max(1, Math.min(t.w.runSec, limitSec)), jobId);
    }
  }
  const wallMs = clock() - wall0;
  const makespanSec = Math.max(1, lastEnd - t0);
  return {
    scheduler: o.scheduler, jobs: done, tooBig: workload.length - fits.length,
    utilization: busyProcSec / (procs * makespanSec), meanWaitSec: done > 0 ? waitSum / done : 0,
    meanBoundedSlowdown: done > 0 ? bsldSum / done : 0, makespanSec, passes, backfilled, wallMs,
    simSecPerWallSec: wallMs > 0 ? makespanSec / (wallMs / 1000) : 0,
  };
}
