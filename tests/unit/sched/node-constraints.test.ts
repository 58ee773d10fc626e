/**
 * --mincpus, --cores-per-socket and --contiguous in placement (fit-node), and
 * what they become at submit (request.ts): a job the cluster can never hold
 * with them is refused, one that can waits for the right nodes.
 */
import { describe, expect, it } from "vitest";
import { fitJob, type NodeView } from "../../../src/sched/plan/fit-node.ts";
import type { ResourceRequest } from "../../../src/sched/plan/request.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { cluster, spec, submit } from "./builders.ts";

function req(over: Partial<ResourceRequest> = {}): ResourceRequest {
  return {
    nodesMin: 1, nodesMax: 1, ntasks: 1, ntasksPerNode: 0, cpusPerTask: 1, mem: { kind: "node", mib: 100 },
    gpusPerNode: 0, gpusTotal: 0, gpusPerTask: 0, gpuType: "", exclusive: false, nodelist: [], exclude: [], features: [],
    ...over,
  };
}

function view(name: string, order: number, over: Partial<NodeView> = {}): NodeView {
  return {
    name, cpus: 4, memMiB: 4000, gpuCount: 0, gpuModel: "", features: [], freeCpus: 4, freeMemMiB: 4000,
    freeGpus: [], idle: true, usable: true, coresPerSocket: 4, order, ...over,
  };
}

const where = (a: ReturnType<typeof fitJob>) => a?.map((s) => [s.node, s.cpus]);

describe("--mincpus", () => {
  it("skips nodes with fewer free CPUs and gives the share at least that many", () => {
    const nodes = [view("n1", 0, { freeCpus: 1, idle: false }), view("n2", 1)];
    expect(where(fitJob(req({ minCpusPerNode: 2 }), nodes, "now"))).toEqual([["n2", 2]]);
    expect(fitJob(req({ minCpusPerNode: 5 }), nodes, "ever")).toBeUndefined();
  });
});

describe("--cores-per-socket", () => {
  it("uses only nodes with at least that many cores per socket", () => {
    const nodes = [view("n1", 0, { coresPerSocket: 2 }), view("n2", 1)];
    expect(where(fitJob(req({ coresPerSocket: 4 }), nodes, "now"))).toEqual([["n2", 1]]);
    expect(fitJob(req({ coresPerSocket: 8 }), nodes, "ever")).toBeUndefined();
  });
});

describe("--threads-per-core / -B S:C:T", () => {
  it("uses only nodes with at least that many threads per core (Slurm 22.05: BadConstraints on 1-thread nodes)", () => {
    const nodes = [view("n1", 0), view("n2", 1, { threadsPerCore: 2, cpus: 8, freeCpus: 8 })];
    expect(where(fitJob(req({ threadsPerCoreMin: 2 }), nodes, "now"))).toEqual([["n2", 1]]);
    expect(fitJob(req({ threadsPerCoreMin: 4 }), nodes, "ever")).toBeUndefined();
  });
});

describe("--contiguous", () => {
  it("takes consecutive nodes, skipping a run broken by a busy node", () => {
    const nodes = [view("n1", 0), view("n2", 1, { freeCpus: 0, idle: false }), view("n3", 2), view("n4", 3)];
    const two = req({ nodesMin: 2, nodesMax: 2, ntasks: 2 });
    expect(where(fitJob(two, nodes, "now"))).toEqual([["n1", 1], ["n3", 1]]);
    expect(where(fitJob({ ...two, contiguous: true }, nodes, "now"))).toEqual([["n3", 1], ["n4", 1]]);
    expect(fitJob({ ...req({ nodesMin: 3, nodesMax: 3, ntasks: 3 }), contiguous: true }, nodes, "now")).toBeUndefined();
  });
});

describe("at submit and in the scheduler", () => {
  const CONF = `ClusterName=t
NodeName=n[1-2] CPUs=4 Sockets=2 CoresPerSocket=2 RealMemory=4000
NodeName=n[3-4] CPUs=4 Sockets=1 CoresPerSocket=4 RealMemory=4000
PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE
`;
  it("places by the options and records what squeue/scontrol show", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ coresPerSocket: 4, mincpus: 3, oversubscribe: true, contiguous: true }), 10));
    const r = schedule(c.state, 11);
    expect(r.decisions[0]?.alloc.map((a) => [a.node, a.cpus])).toEqual([["n3", 3]]);
    expect(c.state.jobs.get(1)?.info).toMatchObject({ oversubscribe: true, contiguous: true, minCpusNode: 3 });
    const never = c.run(submit(spec({ coresPerSocket: 8 }), 12));
    expect(never.error).toMatch(/Requested node configuration is not available/);
  });
});

describe("--ntasks-per-core / --ntasks-per-socket larger than a node holds (oracle 22.05 on 1-socket 4-CPU nodes)", () => {
  const CONF = `ClusterName=t
NodeName=n[1-4] CPUs=4 Sockets=1 CoresPerSocket=4 RealMemory=4000
PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE
`;
  const refused = (over: Partial<Parameters<typeof spec>[0]>): boolean =>
    /Requested node configuration is not available/.test(cluster(CONF).run(submit(spec(over), 10)).error ?? "");
  it.each([
    // the oracle's answers to sbatch [--test-only] with these options: true = refused
    [{ ntasksPerCore: 5 }, true],
    [{ ntasksPerCore: 4 }, false],
    [{ ntasksPerCore: 3, cpusPerTask: 2 }, true],
    [{ ntasksPerCore: 2, cpusPerTask: 2 }, false],
    [{ ntasksPerCore: 5, ntasks: 8 }, true],
    [{ ntasksPerCore: 5, overcommit: true }, false],
    [{ ntasksPerCore: 5, ntasksPerNode: 4, ntasks: 4 }, false],
    [{ ntasksPerCore: 5, ntasksPerSocket: 1 }, false],
    [{ ntasksPerSocket: 5 }, true],
    [{ ntasksPerSocket: 4 }, false],
    [{ ntasksPerSocket: 2, cpusPerTask: 3 }, true],
    [{ ntasksPerSocket: 2, cpusPerTask: 2, ntasks: 4 }, false],
    [{ ntasksPerSocket: 5, overcommit: true }, true],
    [{ ntasksPerSocket: 5, ntasksPerCore: 1 }, true],
  ] as const)("%j refused: %s", (over, expected) => {
    expect(refused(over)).toBe(expected);
  });
});
