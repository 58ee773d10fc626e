/**
 * -k/--no-kill through apply(): a failed node that is not the batch host leaves the job, which
 * runs on with the rest (its share released, counts and TRES shrunk, the steps that ran there
 * ended NODE_FAIL and stopped on their other nodes); the batch host's failure, or a job without
 * the option, ends the job NODE_FAIL as before.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import type { JobSpecP } from "../../../src/sched/model/types.ts";
import { cluster, spec, submit } from "./builders.ts";

/** A 3-node job on n[1-3] (4 CPUs each, 4 tasks a node) with one step on all three and one on the batch host. */
function threeNodeJob(over: Partial<JobSpecP>) {
  const c = cluster();
  c.run(submit(spec({ nodesMin: 3, nodesMax: 3, ntasks: 12, partition: "debug", ...over })));
  c.run({ v: 1, type: "startJobs", at: 20, decisions: schedule(c.state, 20).decisions });
  const info = c.state.jobs.get(1)?.info;
  if (info === undefined || info.state !== "RUNNING") throw new Error("not started");
  const alloc = info.alloc;
  c.run({ v: 1, type: "stepCreate", at: 21, jobId: 1, name: "wide", alloc, ntasks: 3 });
  c.run({ v: 1, type: "stepCreate", at: 21, jobId: 1, name: "local", alloc: alloc.slice(0, 1), ntasks: 1 });
  return { c, info, nodes: alloc.map((a) => a.node) };
}

describe("--no-kill on a node failure", () => {
  it("drops a failed compute node and keeps the job running on the others", () => {
    const { c, info, nodes } = threeNodeJob({ noKill: true });
    const [host, lost, kept] = nodes as [string, string, string];
    const r = c.run({ v: 1, type: "nodeFail", at: 50, node: lost, reason: "Not responding" });
    expect(info.state).toBe("RUNNING");
    expect(info.alloc.map((a) => a.node)).toEqual([host, kept]);
    expect([info.numNodes, info.numCpus]).toEqual([2, 8]);
    expect(info.tresAlloc).toMatch(/^cpu=8,mem=2G,node=2/);
    expect(c.state.nodes.get(lost)?.info.allocCpus).toBe(0);
    expect(c.state.nodes.get(kept)?.info.allocCpus).toBe(4);
    expect(info.steps.map((s) => [s.name, s.state])).toEqual([["wide", "NODE_FAIL"], ["local", "RUNNING"]]);
    expect(r.events).toEqual([{ type: "signalJob", jobId: 1, nodes: [host, kept], signal: 0, reason: "NODE_FAIL", batchOnly: false, stepId: 0 }]);
  });

  it("ends the job when the batch host fails: the script ran there", () => {
    const { c, info, nodes } = threeNodeJob({ noKill: true });
    c.run({ v: 1, type: "nodeFail", at: 50, node: nodes[0] ?? "", reason: "Not responding" });
    expect(info.state).toBe("NODE_FAIL");
  });

  it("without --no-kill a compute node's failure ends the job as before", () => {
    const { c, info, nodes } = threeNodeJob({});
    c.run({ v: 1, type: "nodeFail", at: 50, node: nodes[1] ?? "", reason: "Not responding" });
    expect(info.state).toBe("NODE_FAIL");
    expect(nodes.every((n) => c.state.nodes.get(n)?.info.allocCpus === 0)).toBe(true);
  });
});
