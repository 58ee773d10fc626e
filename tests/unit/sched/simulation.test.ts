/**
 * Seeded simulation of the controller core: random submissions (shapes, GPUs,
 * arrays, holds, dependencies), scheduling passes, job ends, cancels and node
 * failures, with invariants checked after every command. A failure prints its
 * seed; SEED=<n> replays exactly that run.
 */
import { describe, expect, it } from "vitest";
import { apply } from "../../../src/sched/model/apply.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { createRng, type Rng } from "../../../src/lib/rng.ts";
import { ALICE, ROOT, cluster, spec, submit } from "./builders.ts";

const NO_FILTER = { user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" };

function checkInvariants(state: ClusterState): void {
  const used = new Map<string, { cpus: number; mem: number; gpus: number[] }>();
  for (const job of state.jobs.values()) {
    if (job.info.state !== "RUNNING") {
      if (job.info.state !== "PENDING") expect(job.info.endTime).toBeGreaterThan(0);
      continue;
    }
    for (const share of job.info.alloc) {
      const u = used.get(share.node) ?? { cpus: 0, mem: 0, gpus: [] };
      u.cpus += share.cpus;
      u.mem += share.memMib;
      u.gpus.push(...share.gpuIndices);
      used.set(share.node, u);
    }
  }
  for (const node of state.nodes.values()) {
    const u = used.get(node.info.name) ?? { cpus: 0, mem: 0, gpus: [] };
    expect(u.cpus).toBe(node.info.allocCpus);
    expect(u.mem).toBe(node.info.allocMemoryMib);
    expect(u.cpus).toBeLessThanOrEqual(node.info.cpus);
    expect(u.mem).toBeLessThanOrEqual(node.info.realMemoryMib);
    expect(new Set(u.gpus).size).toBe(u.gpus.length);
    expect(u.gpus.every((g) => g >= 0 && g < node.info.gpuCount)).toBe(true);
    if (node.down) expect(u.cpus).toBe(0);
  }
  for (const [id, job] of state.jobs) {
    expect(job.info.jobId).toBe(id);
    expect(id).toBeLessThan(state.nextJobId);
  }
}

function randomCommand(rng: Rng, state: ClusterState, now: number): Command {
  const roll = rng.next();
  const jobs = [...state.jobs.values()];
  const running = jobs.filter((j) => j.info.state === "RUNNING");
  if (roll < 0.35) {
    const s = spec({
      ntasks: rng.int(0, 6), nodesMin: rng.pick([0, 0, 1, 2, 3]), cpusPerTask: rng.pick([0, 1, 2]),
      gresPerNode: rng.next() < 0.3 ? [{ name: "gpu", type: rng.pick(["", "mi300x"]), count: rng.int(1, 4) }] : [],
      partition: rng.pick(["", "", "gpu"]), array: rng.next() < 0.15 ? `0-${rng.int(1, 5)}${rng.next() < 0.5 ? "%2" : ""}` : "",
      hold: rng.next() < 0.05, exclusive: rng.next() < 0.1, memPerNodeMib: rng.next() < 0.2 ? rng.int(100, 5000) : undefined,
      dependency: jobs.length > 0 && rng.next() < 0.1 ? `${rng.pick(["afterok", "afterany", "afternotok"])}:${rng.pick(jobs).info.jobId}` : "",
    });
    return submit(s, now, rng.next() < 0.5 ? ROOT : ALICE);
  }
  if (roll < 0.6 && running.length > 0) {
    const j = rng.pick(running);
    return { v: 1, type: "jobEnded", at: now, jobId: j.info.jobId, exitCode: rng.pick([0, 0, 1]), exitSignal: 0, outcome: "" };
  }
  if (roll < 0.7 && jobs.length > 0) {
    return { v: 1, type: "cancel", at: now, filter: { ...NO_FILTER, jobIds: [String(rng.pick(jobs).info.jobId)] }, signal: 0, batchOnly: false, by: rng.pick([ROOT, ALICE]) };
  }
  if (roll < 0.75) return { v: 1, type: "nodeFail", at: now, node: rng.pick([...state.nodes.keys()]), reason: "Not responding" };
  if (roll < 0.8) {
    const node = rng.pick([...state.nodes.values()]);
    return { v: 1, type: "registerNode", at: now, node: { ...node.info }, runningJobIds: [] };
  }
  if (roll < 0.85 && jobs.length > 0) {
    return { v: 1, type: "updateJob", at: now, jobIds: [String(rng.pick(jobs).info.jobId)], action: rng.pick(["hold", "release", "requeue"]), fields: {}, by: ROOT };
  }
  return { v: 1, type: "startJobs", at: now, decisions: schedule(state, now).decisions };
}

function simulate(seed: number, steps: number): void {
  const rng = createRng(seed);
  const c = cluster();
  let now = 100;
  for (let i = 0; i < steps; i++) {
    now += rng.int(0, 5);
    c.run(randomCommand(rng, c.state, now));
    checkInvariants(c.state);
  }
  const replay = cluster(undefined, false);
  for (const cmd of c.log) apply(replay.state, cmd);
  expect(replay.state).toEqual(c.state);
}

describe("controller core simulation", () => {
  const fixed = process.env.SEED ? [Number(process.env.SEED)] : Array.from({ length: Number(process.env.SEEDS ?? 25) }, (_, i) => i + 1);
  it(`keeps its invariants over ${fixed.length} seeded runs`, { timeout: 180_000 }, () => {
    for (const seed of fixed) {
      try {
        simulate(seed, 250);
      } catch (error) {
        throw new Error(`SEED=${seed} failed (replay: SEED=${seed} bun --bun vitest run tests/unit/sched/simulation.test.ts): ${String(error)}`);
      }
    }
  });
});
