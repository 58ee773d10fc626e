/**
 * @module tests/squeue-sinfo/many-jobs
 * A deterministic busy-cluster job list of any size for squeue: pending jobs
 * with mixed reasons and priorities, running and completing jobs with steps,
 * suspended and finished ones, array remainders with split-off pending tasks
 * and running elements. Used by the volume test and by profiling scripts.
 */
import { job, type Job } from "./fixtures.ts";

export const MANY_NOW = 1796222400;

const REASONS = ["Priority", "Resources", "Dependency", "BeginTime", "JobHeldUser", "JobHeldAdmin"];
const USERS = ["root", "alice", "bob", "carol", "dave"];

/** A small deterministic PRNG (LCG) so the list is the same on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 0x100000000;
  };
}

function running(id: number, r: () => number, over: Partial<Job> = {}): Job {
  const node = `n${1 + Math.floor(r() * 64)}`;
  const start = MANY_NOW - Math.floor(r() * 90000);
  return job({
    jobId: id, name: `run${id % 17}`, state: "RUNNING", priority: 1000 + Math.floor(r() * 20000),
    submitTime: start - 30, eligibleTime: start - 30, startTime: start, endTime: start + 3600,
    timeLimitMin: r() < 0.2 ? undefined : 60 * (1 + Math.floor(r() * 30)), nodelist: node, batchHost: node,
    partition: r() < 0.3 ? "gpu" : "debug", user: USERS[id % USERS.length] ?? "root", uid: id % USERS.length,
    steps: [
      { jobId: id, stepId: -5, name: "batch", state: "RUNNING", nodelist: node, ntasks: 1, cpus: 1, startTime: start, endTime: 0, exitCode: 0, exitSignal: 0, alloc: [], tres: "" },
      ...(r() < 0.5 ? [{ jobId: id, stepId: 0, name: "srun", state: "RUNNING", nodelist: node, ntasks: 2, cpus: 2, startTime: start + 5, endTime: 0, exitCode: 0, exitSignal: 0, alloc: [], tres: "" }] : []),
    ],
    ...over,
  });
}

function pending(id: number, r: () => number, over: Partial<Job> = {}): Job {
  return job({
    jobId: id, name: `job${id % 23}`, reason: REASONS[Math.floor(r() * REASONS.length)] ?? "Priority",
    priority: Math.floor(r() * 30000), submitTime: MANY_NOW - Math.floor(r() * 5000), user: USERS[id % USERS.length] ?? "root",
    uid: id % USERS.length, partition: r() < 0.3 ? "gpu" : r() < 0.1 ? "debug,gpu" : "debug",
    timeLimitMin: r() < 0.5 ? undefined : 30, ...over,
  });
}

/** An array: running elements, split-off pending tasks and the pending remainder. */
function arrayJobs(id: number, r: () => number): Job[] {
  const out: Job[] = [];
  const common = { arrayJobId: id, name: `arr${id % 7}`, partition: "debug", user: "alice", uid: 1 };
  for (let t = 1; t <= 3; t++) out.push(running(id + t, r, { ...common, arrayTaskId: t }));
  for (let t = 4; t <= 5; t++) out.push(pending(id + t, r, { ...common, arrayTaskId: t, reason: "Priority" }));
  out.push(pending(id, r, { ...common, arrayTaskStr: "6-20%4", arrayMaxTasks: 4, reason: "JobArrayTaskLimit" }));
  return out;
}

/** `count` records (about), ids from 1, in a controller-like order. */
export function manyJobs(count: number, seed = 7): Job[] {
  const r = rng(seed);
  const out: Job[] = [];
  let id = 1;
  while (out.length < count) {
    const roll = r();
    if (roll < 0.45) out.push(pending(id, r));
    else if (roll < 0.8) out.push(running(id, r));
    else if (roll < 0.84) out.push(running(id, r, { stateFlags: ["COMPLETING"] }));
    else if (roll < 0.86) out.push(running(id, r, { state: "SUSPENDED", suspendTime: MANY_NOW - 100, preSusTime: 50 }));
    else if (roll < 0.9) out.push(running(id, r, { state: r() < 0.5 ? "COMPLETED" : "FAILED", endTime: MANY_NOW - 10 }));
    else {
      out.push(...arrayJobs(id, r));
      id += 30;
    }
    id++;
  }
  return out.slice(0, count);
}
