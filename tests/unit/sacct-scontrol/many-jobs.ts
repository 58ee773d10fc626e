/**
 * @module tests/sacct-scontrol/many-jobs
 * A deterministic day of accounting for sacct volume checks: `count` finished
 * jobs (completed, failed, cancelled, timed out) with a batch step and often a
 * numbered step, a few array elements, all inside today's default window.
 */
import { at, makeJob, makeStep, type Job } from "./helpers.ts";

/** The sacct clock for these records: late on the oracle day. */
export const MANY_NOW = at("23:00:00");

const STATES = ["COMPLETED", "COMPLETED", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"];
const USERS = ["root", "alice", "bob", "carol"];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 0x100000000;
  };
}

/** `count` finished jobs, ids from 1, each with 1-2 steps. */
export function manyFinishedJobs(count: number, seed = 11): Job[] {
  const r = rng(seed);
  const day = at("00:30:00");
  const jobs: Job[] = [];
  for (let id = 1; id <= count; id++) {
    const submit = day + Math.floor(r() * 70000);
    const start = submit + Math.floor(r() * 60);
    const end = start + 1 + Math.floor(r() * 3000);
    const state = STATES[Math.floor(r() * STATES.length)] ?? "COMPLETED";
    const node = `n${1 + Math.floor(r() * 32)}`;
    const cpus = 1 + Math.floor(r() * 4);
    const steps = [
      makeStep({ jobId: id, stepId: -5, startTime: start, endTime: end, nodelist: node, cpus, exitCode: state === "FAILED" ? 1 : 0 }),
      ...(r() < 0.5 ? [makeStep({ jobId: id, stepId: 0, name: "srun", startTime: start + 1, endTime: end, nodelist: node, cpus, ntasks: cpus })] : []),
    ];
    const array = r() < 0.05 ? { arrayJobId: Math.max(5, id - (id % 5)), arrayTaskId: id % 5 } : {};
    jobs.push(
      makeJob({
        jobId: id, name: `job${id % 13}`, user: USERS[id % USERS.length] ?? "root", uid: id % USERS.length,
        state, exitCode: state === "FAILED" ? 1 : 0, cancelledBy: state === "CANCELLED" ? "0" : "",
        submitTime: submit, eligibleTime: submit, startTime: start, endTime: end, nodelist: node,
        batchHost: node, numCpus: cpus, timeLimitMin: r() < 0.3 ? undefined : 60,
        tresAlloc: `cpu=${cpus},mem=${256 * cpus}M,node=1,billing=${cpus}`, partition: r() < 0.3 ? "gpu" : "debug",
        steps, ...array,
      }),
    );
  }
  return jobs;
}
