/**
 * Counted GRES in the controller: placement by count, the wait (Resources), refusals at
 * submit, the TRES and GresUsed a job leaves, backfill over time, shards and MPS on one
 * GPU each, steps and TRES priority weights.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { stepLayout } from "../../../src/ctld/service-step.ts";
import { computePriorities } from "../../../src/sched/plan/priority.ts";
import { planPreemption } from "../../../src/sched/plan/preempt.ts";
import { ROOT, cluster, spec, submit } from "../sched/builders.ts";
import { configReading } from "../../../src/ctld/reconfigure-read.ts";
import { CONF, startAll } from "./scene.ts";

describe("in the controller", () => {
  it("places jobs where the count is free and holds it until they end; the next one waits with Resources", () => {
    const c = cluster(CONF);
    expect(c.state.nodes.get("n1")?.info).toMatchObject({ gres: "", gresGeneric: "nvme:2", gresTracked: "nvme", gresUsed: "nvme:0" });
    for (let i = 0; i < 3; i++) c.run(submit(spec({ gresPerNode: [{ name: "nvme", type: "", count: 2 }] }), 10 + i));
    const r = startAll(c, 20);
    expect(r.decisions.map((d) => [d.jobId, d.alloc[0]?.node, d.alloc[0]?.gres])).toEqual([[1, "n1", "nvme:2"], [2, "n2", "nvme:2"]]);
    expect(r.reasons.get(3)).toBe("Resources");
    const job = c.state.jobs.get(1)?.info;
    expect(job).toMatchObject({ tresPerNode: "gres/nvme:2" });
    expect(job?.tresReq).toMatch(/,gres\/nvme=2$/);
    expect(job?.tresAlloc).toMatch(/,gres\/nvme=2$/);
    expect(c.state.nodes.get("n1")?.info.gresUsed).toBe("nvme:2");
    c.run({ v: 1, type: "jobEnded", at: 30, jobId: 1, exitCode: 0, exitSignal: 0, outcome: "" });
    expect(c.state.nodes.get("n1")?.info.gresUsed).toBe("nvme:0");
    expect(c.state.jobs.get(1)?.info.steps[0]?.tres).toBe("cpu=1,mem=256M,node=1,gres/nvme=2");
    expect(startAll(c, 31).decisions.map((d) => [d.jobId, d.alloc[0]?.node])).toEqual([[3, "n1"]]);
  });

  it("refuses a name outside GresTypes, and a count or partition no node could ever hold", () => {
    const c = cluster(CONF);
    expect(c.run(submit(spec({ gresPerNode: [{ name: "fpga", type: "", count: 1 }] }))).error).toBe("Invalid generic resource (gres) specification");
    // count 0 asks nothing and is not checked (oracle 22.05: --gres=mic:0 is accepted)
    expect(c.run(submit(spec({ hold: true, gresPerNode: [{ name: "fpga", type: "", count: 0 }] }))).error).toBe("");
    expect(c.run(submit(spec({ gresPerNode: [{ name: "nvme", type: "", count: 3 }] }))).error).toMatch(/Requested node configuration is not available$/);
    expect(c.run(submit(spec({ partition: "plain", gresPerNode: [{ name: "nvme", type: "", count: 1 }] }))).error).toMatch(/Requested node configuration is not available$/);
    // --hold skips the node test, as Slurm does (site-resources: sbatch --hold -c 96 is queued)
    expect(c.run(submit(spec({ hold: true, gresPerNode: [{ name: "nvme", type: "", count: 3 }] }))).error).toBeFalsy();
  });

  it("counts shards as a plain resource, untracked in TRES unless listed", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ gresPerNode: [{ name: "shard", type: "", count: 3 }] })));
    const r = startAll(c, 20);
    expect(r.decisions[0]?.alloc.map((a) => [a.node, a.gres])).toEqual([["n3", "shard:3"]]);
    expect(c.state.jobs.get(1)?.info.tresAlloc).not.toMatch(/shard/);
    expect(c.state.nodes.get("n3")?.info.gresUsed).toBe("shard:3");
  });

  it("serves an mps request from one GPU's share and never with whole GPUs (gres.html; SchedMD's test_invalid_mps_options)", () => {
    const c = cluster(CONF);
    const mps = (count: number, extra = {}) => spec({ partition: "mps", gresPerNode: [{ name: "mps", type: "", count }], ...extra });
    expect(c.run(submit(mps(150))).error).toMatch(/Requested node configuration is not available$/);
    expect(c.run(submit(mps(100))).error).toBeFalsy();
    const both = spec({ partition: "mps", gresPerNode: [{ name: "mps", type: "", count: 1 }, { name: "gpu", type: "", count: 1 }] });
    expect(c.run(submit(both)).error).toBe("Invalid generic resource (gres) specification");
    expect(c.run(submit(mps(1, { gpus: "1" }))).error).toBe("Invalid generic resource (gres) specification");
  });

  it("keeps no_consume in Gres= and shows it unused in GresUsed while jobs run on it", () => {
    const c = cluster(CONF);
    expect(c.state.nodes.get("g1")?.info).toMatchObject({ gresGeneric: "mps:200,bandwidth:lustre:no_consume:4G", gresUsed: "gpu:0(IDX:N/A),mps:0,bandwidth:lustre:0" });
    const bw = (n: number) => spec({ partition: "mps", gresPerNode: [{ name: "bandwidth", type: "", count: n }] });
    c.run(submit(bw(4 * 1024 ** 3)));
    c.run(submit(bw(1024)));
    expect(startAll(c, 20).decisions.map((d) => d.jobId)).toEqual([1, 2]);
    expect(c.state.nodes.get("g1")?.info.gresUsed).toBe("gpu:0(IDX:N/A),mps:0,bandwidth:lustre:0");
  });

  it("sums the partition's tracked GRES into its TRES", () => {
    const debug = cluster(CONF).state.partitions.find((p) => p.info.name === "debug");
    expect(debug?.info.tres).toBe("cpu=16,mem=16000M,node=4,billing=16,gres/nvme=4");
  });
});

describe("backfill with counted GRES", () => {
  const ONE = `ClusterName=t
GresTypes=nvme
DefMemPerCPU=256
NodeName=n1 CPUs=8 RealMemory=8000 Gres=nvme:2
PartitionName=debug Nodes=n1 Default=YES MaxTime=INFINITE
`;
  const nvme = (count: number, timeLimitMin: number) => spec({ timeLimitMin, gresPerNode: [{ name: "nvme", type: "", count }] });

  it("reserves the nvme a waiting job needs: a later job may start only if it ends before that", () => {
    const c = cluster(ONE);
    c.run(submit(nvme(1, 10), 10));
    expect(startAll(c, 10).decisions.map((d) => d.jobId)).toEqual([1]);
    c.run(submit(nvme(2, 10), 11));
    c.run(submit(nvme(1, 60), 12));
    c.run(submit(nvme(1, 5), 13));
    const r = startAll(c, 20);
    const [second, third] = r.reservations;
    expect([second?.jobId, third?.jobId]).toEqual([2, 3]);
    // job 2 once job 1's nvme is back; job 3 after job 2 (both need what job 2 holds)
    expect(second?.startTime).toBeGreaterThanOrEqual(10 + 600);
    expect(third?.startTime).toBeGreaterThanOrEqual((second?.startTime ?? 0) + 600);
    expect(r.decisions.map((d) => d.jobId)).toEqual([4]);
  });
});

describe("shards on GPUs", () => {
  const GPUS = `ClusterName=t
GresTypes=gpu,shard
DefMemPerCPU=256
NodeName=g1 CPUs=8 RealMemory=8000 Gres=gpu:2,shard:8
PartitionName=debug Nodes=g1 Default=YES MaxTime=INFINITE
`;
  const shard = (count: number) => spec({ gresPerNode: [{ name: "shard", type: "", count }] });
  const gpu = () => spec({ gresPerNode: [{ name: "gpu", type: "", count: 1 }] });

  it("put a job's shards on one GPU nobody holds whole; a GPU with shards is not given whole", () => {
    const c = cluster(GPUS);
    c.run(submit(gpu(), 10));
    c.run(submit(shard(3), 11));
    c.run(submit(gpu(), 12));
    c.run(submit(shard(1), 13));
    c.run(submit(shard(1), 14));
    const r = startAll(c, 20);
    expect(r.decisions.map((d) => [d.jobId, d.alloc[0]?.gpuIndices, d.alloc[0]?.gres])).toEqual([
      [1, [0], undefined], [2, [], "shard:3(IDX:1)"], [4, [], "shard:1(IDX:1)"],
    ]);
    expect(r.reasons.get(3)).toBe("Resources");
    expect(c.state.nodes.get("g1")?.info.gresUsed).toBe("gpu:1(IDX:0),shard:4");
    // once the shards end, GPU 1 is whole-free again
    c.run({ v: 1, type: "jobEnded", at: 30, jobId: 2, exitCode: 0, exitSignal: 0, outcome: "" });
    c.run({ v: 1, type: "jobEnded", at: 30, jobId: 4, exitCode: 0, exitSignal: 0, outcome: "" });
    expect(startAll(c, 31).decisions.map((d) => [d.jobId, d.alloc[0]?.gpuIndices])).toEqual([[3, [1]]]);
  });

  it("refuses a start that puts shards on a GPU held whole, or past its share", () => {
    const c = cluster(GPUS);
    c.run(submit(gpu(), 10));
    startAll(c, 10);
    for (const n of [2, 2, 3]) c.run(submit(shard(n), 11));
    const start = (jobId: number, gres: string) =>
      c.run({ v: 1, type: "startJobs", at: 12, decisions: [{ jobId, arrayTaskId: 0, alloc: [{ node: "g1", cpus: 1, memMib: 256, gpuIndices: [], tasks: 1, gres }] }] });
    start(2, "shard:2(IDX:0)");
    expect(c.state.jobs.get(2)?.info.state).toBe("PENDING");
    start(2, "shard:2(IDX:1)");
    start(3, "shard:2(IDX:1)");
    start(4, "shard:3(IDX:1)");
    expect([2, 3, 4].map((id) => c.state.jobs.get(id)?.info.state)).toEqual(["RUNNING", "RUNNING", "PENDING"]);
  });
});

describe("steps", () => {
  it("carry the job's counted GRES on each node (the agent opens a shard's GPU for them)", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ gresPerNode: [{ name: "shard", type: "", count: 2 }] })));
    startAll(c, 20);
    const job = c.state.jobs.get(1);
    if (job === undefined) throw new Error("job 1");
    const step = stepLayout(job, spec({ ntasks: 1 }));
    expect(typeof step !== "string" && step.map((s) => [s.node, s.gres])).toEqual([["n3", "shard:2"]]);
  });

  it("show the job's tracked GRES in their TRES (sacct)", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ gresPerNode: [{ name: "nvme", type: "", count: 1 }] })));
    startAll(c, 20);
    const job = c.state.jobs.get(1);
    const alloc = job === undefined ? "none" : stepLayout(job, spec({ ntasks: 1 }));
    if (typeof alloc === "string") throw new Error(alloc);
    c.run({ v: 1, type: "stepCreate", at: 21, jobId: 1, name: "true", alloc, ntasks: 1 });
    expect(c.state.jobs.get(1)?.info.steps[0]?.tres).toBe("cpu=1,mem=256M,node=1,gres/nvme=1");
  });
});

describe("preemption", () => {
  it("frees the nvme a higher-tier job needs by preempting the job that holds it", () => {
    const c = cluster(`ClusterName=p
GresTypes=nvme
DefMemPerCPU=100
PreemptType=preempt/partition_prio
PreemptMode=CANCEL
NodeName=n1 CPUs=4 RealMemory=4000 Gres=nvme:1
NodeName=n2 CPUs=4 RealMemory=4000
PartitionName=low Nodes=n[1-2] Default=YES PriorityTier=1
PartitionName=high Nodes=n[1-2] PriorityTier=2
`);
    c.run(submit(spec({ timeLimitMin: 60, nodelist: "n2" }), 10));
    c.run(submit(spec({ timeLimitMin: 60, gresPerNode: [{ name: "nvme", type: "", count: 1 }] }), 11));
    startAll(c, 20);
    expect([1, 2].map((id) => c.state.jobs.get(id)?.info.state)).toEqual(["RUNNING", "RUNNING"]);
    c.run(submit(spec({ partition: "high", timeLimitMin: 10, gresPerNode: [{ name: "nvme", type: "", count: 1 }] }), 30));
    const r = schedule(c.state, 40);
    expect(planPreemption(c.state, r.reasons, r.priorities)?.victims.map((v) => v.jobId)).toEqual([2]);
  });
});

describe("scontrol reconfigure", () => {
  it("applies changed counted GRES to the nodes and the partitions' TRES", () => {
    const c = cluster(CONF);
    const next = configReading({ conf: CONF.replace("NodeName=n[1-2] CPUs=4 RealMemory=4000 Gres=nvme:2", "NodeName=n[1-2] CPUs=4 RealMemory=4000 Gres=nvme:3") });
    if (!next.ok) throw new Error(next.error.message);
    expect(c.run({ v: 1, type: "reconfigure", at: 50, by: ROOT, ...next.value }).error).toBe("");
    expect(c.state.nodes.get("n1")?.info.gresGeneric).toBe("nvme:3");
    expect(c.state.partitions.find((p) => p.info.name === "debug")?.info.tres).toMatch(/,gres\/nvme=6$/);
  });
});

describe("priority", () => {
  it("PriorityWeightTRES weighs a tracked counted GRES by the job's share of its partition's", () => {
    const c = cluster(CONF.replace("DefMemPerCPU=256", "DefMemPerCPU=256\nPriorityType=priority/multifactor\nPriorityWeightTRES=GRES/nvme=1000"));
    c.run(submit(spec({ gresPerNode: [{ name: "nvme", type: "", count: 2 }] }), 10));
    c.run(submit(spec(), 10));
    const p = computePriorities(c.state, 10, c.state.config.sched).values;
    // debug holds nvme:4 (n1, n2): asking 2 adds half the weight (the sum is truncated, so 499 or 500)
    const diff = (p.get(1) ?? 0) - (p.get(2) ?? 0);
    expect(diff >= 499 && diff <= 500).toBe(true);
  });
});
