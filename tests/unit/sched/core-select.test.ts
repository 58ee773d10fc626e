/**
 * The controller's choice of CPU ids (sched/plan/core-select.ts): examples for each
 * rule, and a seeded property run over random nodes, holdings and requests
 * (SEED=n replays one seed; the failing seed is printed).
 */
import { describe, expect, it } from "vitest";
import { coreTree, selectCpuIds, socketCountsOf, socketDistOf, type CoreAsk, type CpuLayout } from "../../../src/sched/plan/core-select.ts";
import { createRng } from "../../../src/lib/rng.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { cluster, spec, submit } from "./builders.ts";

const TWO_BY_FOUR_HT: CpuLayout = { cpus: 16, sockets: 2, coresPerSocket: 4, threadsPerCore: 2 };
const ask = (over: Partial<CoreAsk>): CoreAsk => ({
  count: 1, socketCounts: [], tasks: 1, cpusPerTask: 1, ntasksPerSocket: 0, coresPerSocket: 0, oneThreadPerCore: false, socketDist: "cyclic", ...over,
});

describe("core tree", () => {
  it("numbers threads within cores within sockets, as Slurm's abstract ids", () => {
    expect(coreTree(TWO_BY_FOUR_HT)[1]?.[0]).toEqual([8, 9]);
    expect(coreTree({ cpus: 6, sockets: 2, coresPerSocket: 1, threadsPerCore: 1 })).toEqual([[[0], [1], [2]], [[3], [4], [5]]]);
    expect(coreTree({ cpus: 5, sockets: 2, coresPerSocket: 1, threadsPerCore: 1 })).toEqual([[[0], [1], [2], [3], [4]]]);
  });

  it("reads the socket level of --distribution; cyclic when absent (Slurm's default)", () => {
    expect(socketDistOf("")).toBe("cyclic");
    expect(socketDistOf("cyclic:block")).toBe("block");
    expect(socketDistOf("block:fcyclic,Pack")).toBe("cyclic");
  });
});

describe("selectCpuIds", () => {
  it("spreads tasks over sockets by default and packs them with *:block", () => {
    const layout: CpuLayout = { cpus: 8, sockets: 2, coresPerSocket: 4, threadsPerCore: 1 };
    expect(selectCpuIds(layout, new Set(), ask({ count: 4, tasks: 4 }))).toEqual([0, 1, 4, 5]);
    expect(selectCpuIds(layout, new Set(), ask({ count: 4, tasks: 4, socketDist: "block" }))).toEqual([0, 1, 2, 3]);
  });

  it("keeps a task's CPUs on one socket and skips taken ids", () => {
    const layout: CpuLayout = { cpus: 8, sockets: 2, coresPerSocket: 4, threadsPerCore: 1 };
    expect(selectCpuIds(layout, new Set([0, 1, 2]), ask({ count: 2, tasks: 1, cpusPerTask: 2, socketDist: "block" }))).toEqual([4, 5]);
  });

  it("caps tasks per socket with --ntasks-per-socket", () => {
    const layout: CpuLayout = { cpus: 8, sockets: 2, coresPerSocket: 4, threadsPerCore: 1 };
    expect(selectCpuIds(layout, new Set(), ask({ count: 4, tasks: 4, ntasksPerSocket: 2, socketDist: "block" }))).toEqual([0, 1, 4, 5]);
  });

  it("gives whole cores under --hint=nomultithread and single threads otherwise", () => {
    expect(selectCpuIds(TWO_BY_FOUR_HT, new Set([0]), ask({ count: 4, tasks: 2, cpusPerTask: 1, oneThreadPerCore: true, socketDist: "block" }))).toEqual([2, 3, 4, 5]);
    expect(selectCpuIds(TWO_BY_FOUR_HT, new Set([0]), ask({ count: 2, tasks: 2, socketDist: "block" }))).toEqual([1, 2]);
  });

  it("honours the per-socket counts of a GPU share", () => {
    expect(socketCountsOf(TWO_BY_FOUR_HT, selectCpuIds(TWO_BY_FOUR_HT, new Set(), ask({ count: 6, tasks: 6, socketCounts: [0, 6] })))).toEqual([0, 6]);
  });

  it("never gives fewer CPUs than allocated while the node has them free", () => {
    const layout: CpuLayout = { cpus: 8, sockets: 2, coresPerSocket: 4, threadsPerCore: 1 };
    expect(selectCpuIds(layout, new Set([0, 1, 2, 3]), ask({ count: 4, tasks: 4, ntasksPerSocket: 1 }))).toEqual([4, 5, 6, 7]);
  });
});

describe("selectCpuIds properties (seeded)", () => {
  it("no id twice on a node, ids on the node and free, every allocated CPU given, socket rules kept when they can be", () => {
    const seeds = process.env.SEED ? [Number(process.env.SEED)] : Array.from({ length: 300 }, (_, i) => i + 1);
    for (const seed of seeds) {
      const rng = createRng(seed);
      const sockets = rng.int(1, 4);
      const cores = rng.int(1, 8);
      const threads = rng.pick([1, 2, 4]);
      const layout: CpuLayout = rng.next() < 0.1
        ? { cpus: rng.int(1, 40), sockets, coresPerSocket: 1, threadsPerCore: 1 } // counts that do not multiply out
        : { cpus: sockets * cores * threads, sockets, coresPerSocket: cores, threadsPerCore: threads };
      const holders = new Map<number, number[]>();
      const taken = (except?: number): Set<number> => new Set([...holders].filter(([j]) => j !== except).flatMap(([, ids]) => ids));
      for (let job = 1; job <= rng.int(1, 6); job++) {
        const free = layout.cpus - taken().size;
        if (free <= 0) break;
        const tasks = rng.int(1, Math.max(1, Math.min(free, 6)));
        const cpusPerTask = rng.int(1, Math.max(1, Math.floor(free / tasks)));
        const a = ask({
          count: Math.min(free, tasks * cpusPerTask + (rng.next() < 0.2 ? rng.int(0, 2) : 0)), tasks, cpusPerTask,
          ntasksPerSocket: rng.next() < 0.3 ? rng.int(1, 3) : 0, coresPerSocket: rng.next() < 0.2 ? rng.int(1, 3) : 0,
          oneThreadPerCore: rng.next() < 0.3, socketDist: rng.pick(["block", "cyclic"] as const),
        });
        const before = taken();
        const ids = selectCpuIds(layout, before, a);
        const where = `SEED=${seed} job ${job} layout ${JSON.stringify(layout)} ask ${JSON.stringify(a)}`;
        expect(new Set(ids).size, where).toBe(ids.length);
        expect(ids.every((id) => Number.isInteger(id) && id >= 0 && id < layout.cpus && !before.has(id)), where).toBe(true);
        expect(ids.length, where).toBe(Math.min(a.count, layout.cpus - before.size));
        // On an empty node, --ntasks-per-socket that leaves room is never exceeded.
        if (before.size === 0 && a.ntasksPerSocket > 0 && a.coresPerSocket === 0 && !a.oneThreadPerCore) {
          const perSocketCap = a.ntasksPerSocket * Math.max(1, Math.floor(a.count / a.tasks));
          const tree = coreTree(layout);
          const socketCpus = tree[0]?.flat().length ?? 0;
          if (perSocketCap * tree.length >= a.count && a.count === a.tasks * a.cpusPerTask && a.cpusPerTask <= Math.min(socketCpus, perSocketCap)) {
            expect(Math.max(...socketCountsOf(layout, ids)), where).toBeLessThanOrEqual(perSocketCap);
          }
        }
        holders.set(job, ids);
      }
    }
  });
});

describe("apply(): the allocation carries the CPU ids", () => {
  const HT = `ClusterName=test
DefMemPerCPU=100
NodeName=h1 CPUs=16 Sockets=2 CoresPerSocket=4 ThreadsPerCore=2 RealMemory=8000 Port=17001
PartitionName=debug Nodes=h1 Default=YES MaxTime=INFINITE
`;
  const startPass = (c: ReturnType<typeof cluster>, at: number): void => {
    const r = schedule(c.state, at);
    if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at, decisions: r.decisions });
  };

  it("gives two jobs disjoint ids, frees them when a job ends, and allocates whole cores under --hint=nomultithread", () => {
    const c = cluster(HT);
    c.run(submit(spec({ ntasks: 3 })));
    c.run(submit(spec({ ntasks: 2, hint: "nomultithread", distribution: "block:cyclic" })));
    startPass(c, 20);
    const a = c.state.jobs.get(1)?.info.alloc[0];
    const b = c.state.jobs.get(2)?.info.alloc[0];
    expect(a?.cpuIds).toBe("0-2"); // no -m: the scheduler's fewest sockets
    expect(b).toMatchObject({ cpus: 4, cpuIds: "4-5,8-9", socketCpus: "2,2" }); // a whole core per task, tasks cyclic over the sockets
    expect(c.state.nodes.get("h1")?.cpuIdsByJob).toEqual({ "1": [0, 1, 2], "2": [4, 5, 8, 9] });
    c.run({ v: 1, type: "jobEnded", at: 30, jobId: 1, exitCode: 0, exitSignal: 0, outcome: "" });
    expect(c.state.nodes.get("h1")?.cpuIdsByJob).toEqual({ "2": [4, 5, 8, 9] });
    c.run(submit(spec({ ntasks: 2, distribution: "block:block" })));
    startPass(c, 40);
    expect(c.state.jobs.get(3)?.info.alloc[0]?.cpuIds).toBe("0-1");
  });
});

describe("scheduler: --ntasks-per-socket and --cores-per-socket", () => {
  const TWO = `ClusterName=test
DefMemPerCPU=100
NodeName=h[1-2] CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=8000 Port=17001
PartitionName=debug Nodes=h[1-2] Default=YES MaxTime=INFINITE
`;
  it("puts at most N tasks on a socket, so on a node at most N × sockets", () => {
    const c = cluster(TWO);
    c.run(submit(spec({ ntasks: 4, nodesMin: 2, nodesMax: 2, ntasksPerSocket: 1 })));
    // Without the cap both nodes could hold all four tasks; with it, -N1 can never run.
    expect(c.run(submit(spec({ ntasks: 4, ntasksPerSocket: 1, nodesMin: 1, nodesMax: 1 }))).error).toContain("Requested node configuration is not available");
    const r = schedule(c.state, 20);
    c.run({ v: 1, type: "startJobs", at: 20, decisions: r.decisions });
    expect(c.state.jobs.get(1)?.info.alloc.map((a) => [a.node, a.tasks, a.cpuIds, a.socketCpus])).toEqual([["h1", 2, "0,4", "1,1"], ["h2", 2, "0,4", "1,1"]]);
  });

  it("refuses nodes with fewer cores per socket than asked (Slurm's node filter)", () => {
    const c = cluster(TWO);
    expect(c.run(submit(spec({ coresPerSocket: 8 }))).error).toContain("Requested node configuration is not available");
    expect(c.run(submit(spec({ coresPerSocket: 4 }))).error).toBe("");
  });
});
