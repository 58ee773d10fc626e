/**
 * --spread-job in placement (fit-node): as many nodes as tasks, within -N's maximum, evenly;
 * the node counts are those Slurm 22.05 chose on the oracle's four 4-CPU nodes.
 */
import { describe, expect, it } from "vitest";
import { fitJob, type NodeView } from "../../../src/sched/plan/fit-node.ts";
import type { ResourceRequest } from "../../../src/sched/plan/request.ts";

const UNBOUNDED = 1_000_000;

/** A request as request.ts builds it: without -N the layout says no node count was given. */
function req(over: Partial<ResourceRequest> = {}): ResourceRequest {
  const nodesGiven = over.nodesMax !== undefined && over.nodesMax !== UNBOUNDED;
  const base = { nodesMin: 1, nodesMax: UNBOUNDED, ntasks: 1, cpusPerTask: 1, ntasksPerNode: 0, ...over };
  return {
    layout: {
      nodesGiven, nodesMin: base.nodesMin, nodesMax: base.nodesMax, ntasks: base.ntasks, ntasksGiven: true,
      cpusPerTask: base.cpusPerTask, ntasksPerNode: 0, overcommit: false, exclusive: false,
    },
    nodesMin: 1, nodesMax: UNBOUNDED, ntasks: 1, ntasksPerNode: 0, cpusPerTask: 1, mem: { kind: "node", mib: 100 },
    gpusPerNode: 0, gpusTotal: 0, gpusPerTask: 0, gpuType: "", exclusive: false, nodelist: [], exclude: [], features: [],
    ...over,
  };
}

const view = (name: string, over: Partial<NodeView> = {}): NodeView => ({
  name, cpus: 4, memMiB: 4000, gpuCount: 0, gpuModel: "", features: [], freeCpus: 4, freeMemMiB: 4000,
  freeGpus: [], idle: true, usable: true, ...over,
});

const FOUR = ["n1", "n2", "n3", "n4"].map((n) => view(n));
const tasksPerNode = (a: ReturnType<typeof fitJob>) => a?.map((s) => [s.node, s.tasks]);

describe("--spread-job", () => {
  it.each([
    // ntasks, cpus per task, -N min-max, expected tasks per node, nodes without --spread-job
    [4, 1, [1, UNBOUNDED], [["n1", 1], ["n2", 1], ["n3", 1], ["n4", 1]], 1],
    [2, 1, [1, UNBOUNDED], [["n1", 1], ["n2", 1]], 1],
    [3, 2, [1, UNBOUNDED], [["n1", 1], ["n2", 1], ["n3", 1]], 2],
    [4, 1, [1, 2], [["n1", 2], ["n2", 2]], 2],
    [8, 1, [1, UNBOUNDED], [["n1", 2], ["n2", 2], ["n3", 2], ["n4", 2]], 2],
  ] as const)("-n %i -c %i -N %j", (ntasks, cpusPerTask, [nodesMin, nodesMax], expected, packed) => {
    const spread = req({ ntasks, cpusPerTask, nodesMin, nodesMax, spreadJob: true });
    expect(tasksPerNode(fitJob(spread, FOUR, "now"))).toEqual(expected);
    // without it the same request packs onto the fewest nodes
    expect(fitJob({ ...spread, spreadJob: false }, FOUR, "now")?.length).toBe(packed);
  });

  it("waits for a busy node rather than spreading over fewer (22.05: -n 8 pends as NumNodes=4-4)", () => {
    const busy = [...FOUR.slice(0, 3), view("n4", { freeCpus: 0, idle: false })];
    expect(fitJob(req({ ntasks: 8, spreadJob: true }), busy, "now")).toBeUndefined();
    expect(fitJob(req({ ntasks: 8, spreadJob: true }), busy, "ever")?.length).toBe(4);
  });
});

describe("--use-min-nodes", () => {
  const ranged = (ntasks: number, useMinNodes: boolean) => {
    const r = req({ ntasks, nodesMin: 1, nodesMax: 3, useMinNodes });
    return fitJob(r, FOUR, "now")?.map((s) => s.node);
  };

  it("a free range takes its minimum instead of its maximum (oracle 22.05: -N 1-3 runs on n1, without it on n[1-3])", () => {
    expect(ranged(1, true)).toEqual(["n1"]);
    expect(ranged(1, false)).toEqual(["n1", "n2", "n3"]);
  });

  it("and as few more nodes as the tasks need", () => {
    expect(ranged(8, true)).toEqual(["n1", "n2"]);
  });
});
