/**
 * --overcommit jobs hold one task's CPUs per node (the oracle: `sbatch --test-only -n5 -O`
 * uses 1 processor on n1, `-N2 -n20 -O` 2 processors on n[1-2], `-n100 -O` 1 processor):
 * the scheduler's decision for such a job must pass apply()'s re-check, which once compared
 * the allocation's CPUs with tasks x CPUs per task and rejected it every pass (the job then
 * pended forever: issue 21's `srun -n5 -O` hang), and the submission is not "larger than
 * the partition" because of its task count.
 */
import { describe, expect, it } from "vitest";
import { apply } from "../../../src/sched/model/apply.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { cpusNeeded, normaliseAsk } from "../../../src/compat/job-layout.ts";
import { cluster, spec, submit } from "./builders.ts";

const CONF = `ClusterName=test
DefMemPerCPU=256
NodeName=n[1-4] CPUs=4 RealMemory=4000 Port=17001
PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE
`;

function startOne(over: Parameters<typeof spec>[0]): { state: string; reason: string; cpus: number[]; tasks: number[] } {
  const c = cluster(CONF);
  const [id] = c.run(submit(spec(over))).ids;
  const pass = schedule(c.state, 10);
  const r = apply(c.state, { v: 1, type: "startJobs", at: 11, decisions: pass.decisions });
  expect(r.error).toBe("");
  const job = c.state.jobs.get(id ?? 0);
  const alloc = pass.decisions.find((d) => d.jobId === id)?.alloc ?? [];
  return { state: job?.info.state ?? "", reason: job?.info.reason ?? "", cpus: alloc.map((a) => a.cpus), tasks: alloc.map((a) => a.tasks) };
}

describe("--overcommit jobs start", () => {
  it("-n5 -O runs its five tasks on one node, one CPU", () => {
    expect(startOne({ ntasks: 5, overcommit: true })).toEqual({ state: "RUNNING", reason: "None", cpus: [1], tasks: [5] });
  });

  it("-N2 -n20 -O: two nodes, one CPU each", () => {
    const r = startOne({ nodesMin: 2, ntasks: 20, overcommit: true });
    expect({ state: r.state, cpus: r.cpus, tasks: r.tasks.reduce((a, b) => a + b, 0) }).toEqual({ state: "RUNNING", cpus: [1, 1], tasks: 20 });
  });

  it("-n100 -O on 16 CPUs is not larger than the partition", () => {
    expect(startOne({ ntasks: 100, overcommit: true })).toMatchObject({ state: "RUNNING", cpus: [1], tasks: [100] });
  });

  it("-n5 without -O still needs five CPUs", () => {
    expect(startOne({ ntasks: 5 })).toMatchObject({ state: "RUNNING", cpus: [4, 1] });
  });
});

describe("cpusNeeded", () => {
  const shape = (ntasks: number, c: number, overcommit: boolean) =>
    normaliseAsk({ nodesMin: 0, nodesMax: 0, ntasks, cpusPerTask: c, ntasksPerNode: 0, overcommit, exclusive: false }).shape;
  it("one task's CPUs per node with --overcommit, every task's without", () => {
    expect(cpusNeeded(shape(5, 1, true), 1)).toBe(1);
    expect(cpusNeeded(shape(20, 2, true), 2)).toBe(4);
    expect(cpusNeeded(shape(5, 2, false), 2)).toBe(10);
  });
});
