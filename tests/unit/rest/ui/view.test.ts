/**
 * The page's cluster view (rest/ui/view): GPU holders per node from the jobs' allocations,
 * XGMI/NVLink groups from the registered topology, job order and totals; and the bounded
 * usage sampler (rest/ui/samples).
 */
import { describe, expect, it } from "vitest";
import { buildView, gpuGroups, JOB_COLUMNS, NODE_COLUMNS } from "../../../../src/net/rest/ui/view.ts";
import { JOBS_MAX, POINTS_MAX, UsageSamples } from "../../../../src/net/rest/ui/samples.ts";
import { declaredLinks, topologyFromLinks } from "../../../../src/devices/gpu-topology.ts";
import { emptyJobInfo, emptyNodeInfo } from "../../../../src/sched/model/records.ts";

const node = (name: string, gpuCount: number, gpuTopology = "") => ({ ...emptyNodeInfo(name), state: "MIXED", cpus: 8, gpuCount, gpuTopology });
const job = (jobId: number, state: string, more: Partial<ReturnType<typeof emptyJobInfo>> = {}) => ({ ...emptyJobInfo(), jobId, state, user: "alice", ...more });

describe("gpuGroups", () => {
  it("groups GPUs joined by fabric links and none when the topology is unknown", () => {
    const hives = topologyFromLinks(declaredLinks("hives:4", 8) as number[][]);
    expect(gpuGroups(hives, 8)).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    expect(gpuGroups(topologyFromLinks(declaredLinks("xgmi", 4) as number[][]), 4)).toEqual([0, 0, 0, 0]);
    expect(gpuGroups(topologyFromLinks(declaredLinks("pcie", 3) as number[][]), 3)).toEqual([0, 1, 2]);
    expect(gpuGroups("", 8)).toEqual([]);
    expect(gpuGroups("1,2;3", 2)).toEqual([]);
  });
});

describe("buildView", () => {
  const nodes = { nodes: [node("n1", 4), node("n2", 2), node("cpu1", 0)], partitions: [], now: 100, licenses: [], downSpans: [] };
  const jobs = {
    clusterName: "c", now: 100,
    jobs: [
      job(7, "PENDING", { priority: 10, reason: "Resources" }),
      job(5, "RUNNING", { alloc: [{ node: "n1", cpus: 2, memMib: 10, gpuIndices: [1, 3], tasks: 1 }, { node: "n2", cpus: 1, memMib: 1, gpuIndices: [0], tasks: 1 }] }),
      job(8, "PENDING", { priority: 30, reason: "Priority" }),
      job(3, "COMPLETED", { alloc: [{ node: "n2", cpus: 1, memMib: 1, gpuIndices: [1], tasks: 1 }] }),
    ],
  };
  const view = buildView({ nodes, jobs, user: "alice" });
  const col = (name: (typeof NODE_COLUMNS)[number]) => NODE_COLUMNS.indexOf(name);
  const jcol = (name: (typeof JOB_COLUMNS)[number]) => JOB_COLUMNS.indexOf(name);
  const text = (i: unknown) => view.strings[i as number];

  it("sends each GPU grouping once and every repeated string once", () => {
    const hives = topologyFromLinks(declaredLinks("hives:4", 8) as number[][]);
    const many = buildView({ nodes: { ...nodes, nodes: Array.from({ length: 50 }, (_, i) => node(`g${i}`, 8, hives)) }, jobs, user: "alice" });
    expect(many.groupSets).toEqual([[0, 0, 0, 0, 1, 1, 1, 1]]);
    expect(new Set(many.nodes.map((n) => n[col("gpuGroups")]))).toEqual(new Set([0]));
    expect(many.strings.filter((x) => x === "alice")).toHaveLength(1);
  });

  it("colours each GPU by the running job that holds it, never by a finished one", () => {
    expect(view.nodes.map((n) => n[col("gpuJobs")])).toEqual([[0, 5, 0, 5], [5, 0], []]);
    expect(view.totals).toMatchObject({ nodes: 3, gpus: 6, gpusAllocated: 3, running: 1, pending: 2 });
    // the cells' names: job 5 and its user, and no other job
    expect(Object.keys(view.holders)).toEqual(["5"]);
    expect(view.holders[5]?.[0]).toBe("");
    expect(text(view.holders[5]?.[1])).toBe("alice");
  });

  it("lists running jobs first, then pending by priority, with their reasons", () => {
    expect(view.jobs.map((j) => j[jcol("jobId")])).toEqual([5, 8, 7, 3]);
    expect(view.jobs.map((j) => text(j[jcol("reason*")]))).toEqual(["None", "Priority", "Resources", "None"]);
    expect(view.jobs.map((j) => text(j[jcol("state*")]))).toEqual(["RUNNING", "PENDING", "PENDING", "COMPLETED"]);
    // a plain job's display id is its number: left out (""), the page writes it back
    expect(view.jobs.map((j) => j[jcol("id")])).toEqual(["", "", "", ""]);
    expect(view.jobs[0]?.[jcol("gpus")]).toBe(3);
  });
});

describe("UsageSamples", () => {
  const loads = new Map([["n1", { cpuLoad: 2, realMemoryMib: 1000, freeMemoryMib: 400 }]]);
  const alloc = [{ node: "n1", cpus: 4, memMib: 800 }];

  it("samples only watched jobs, one point a second at most", () => {
    const s = new UsageSamples();
    s.add(1, 10, alloc, loads);
    expect(s.watch(1)).toEqual([]);
    s.add(1, 10, alloc, loads);
    s.add(1, 10.5, alloc, loads);
    expect(s.watch(1)).toEqual([{ t: 10, load: 2, cpus: 4, memUsedMiB: 600, memTotalMiB: 1000 }]);
  });

  it("keeps at most POINTS_MAX points per job and JOBS_MAX jobs", () => {
    const s = new UsageSamples();
    s.watch(1);
    for (let t = 0; t < POINTS_MAX + 20; t++) s.add(1, t, alloc, loads);
    const points = s.watch(1);
    expect(points).toHaveLength(POINTS_MAX);
    expect(points[0]?.t).toBe(20);
    for (let id = 2; id <= JOBS_MAX + 1; id++) s.watch(id);
    // job 1 was the least recently viewed: dropped, so it starts again empty
    s.add(1, 1000, alloc, loads);
    expect(s.watch(1)).toEqual([]);
  });
});
