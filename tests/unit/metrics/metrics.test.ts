/**
 * @module tests/unit/metrics
 * The metrics endpoints' text: the renderer's escaping and histogram rules, and the
 * controller's and agent's families on a real state (built with apply()), each read back
 * through a strict exposition parser, so a malformed line fails the test.
 */
import { describe, expect, it } from "vitest";
import { Histogram, renderMetrics } from "../../../src/net/metrics-text.ts";
import { createRpcMetrics } from "../../../src/net/rpc-metrics.ts";
import { controllerMetrics, createSchedulerStats } from "../../../src/ctld/metrics.ts";
import { agentMetrics } from "../../../src/agent/metrics.ts";
import { readProcessFacts } from "../../../src/net/metrics-process.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { ALICE, cluster, spec, submit } from "../sched/builders.ts";
import { parseExposition, type ParsedFamily } from "./parse-exposition.ts";

const value = (f: ParsedFamily | undefined, labels: Record<string, string> = {}): number | undefined =>
  f?.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

describe("renderMetrics", () => {
  it("escapes label values and help text so they read back unchanged", () => {
    const nasty = 'a\\b"c\nd';
    const text = renderMetrics([{ name: "x_total", help: "line1\nline2 \\ back", type: "counter", samples: [{ labels: { user: nasty }, value: 3 }] }]);
    expect(text).toBe('# HELP x_total line1\\nline2 \\\\ back\n# TYPE x_total counter\nx_total{user="a\\\\b\\"c\\nd"} 3\n');
    const parsed = parseExposition(text).get("x_total");
    expect(parsed?.help).toBe("line1\nline2 \\ back");
    expect(parsed?.samples[0]?.labels.user).toBe(nasty);
  });

  it("writes cumulative histogram buckets ending in +Inf = count", () => {
    const h = new Histogram([0.1, 1]);
    for (const v of [0.05, 0.5, 0.5, 7]) h.observe(v);
    const f = parseExposition(renderMetrics([{ name: "t_seconds", help: "t", type: "histogram", samples: h.samples({ m: "a" }) }])).get("t_seconds");
    expect(f?.samples.map((s) => [s.name, s.labels.le ?? "", s.value])).toEqual([
      ["t_seconds_bucket", "0.1", 1], ["t_seconds_bucket", "1", 3], ["t_seconds_bucket", "+Inf", 4],
      ["t_seconds_sum", "", 8.05], ["t_seconds_count", "", 4],
    ]);
  });

  it("refuses invalid names and a family twice (a bug, not input)", () => {
    expect(() => renderMetrics([{ name: "bad-name", help: "", type: "gauge", samples: [] }])).toThrow(/bad metric name/);
    expect(() => renderMetrics([{ name: "g", help: "", type: "gauge", samples: [{ labels: { "0x": "" }, value: 1 }] }])).toThrow(/bad label/);
    const f = { name: "g", help: "", type: "gauge" as const, samples: [] };
    expect(() => renderMetrics([f, f])).toThrow(/twice/);
  });

  it("the parser rejects what Prometheus would (so the tests below can fail)", () => {
    expect(() => parseExposition("# HELP a x\n# TYPE a gauge\na{b=\"\\q\"} 1\n")).toThrow(/bad escape/);
    expect(() => parseExposition("a 1\n")).toThrow(/outside its family/);
    expect(() => parseExposition("# HELP a x\n# TYPE a gauge\na 1\na 2\n")).toThrow(/repeated/);
    expect(() => parseExposition("# HELP h x\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n")).toThrow(/cumulative/);
  });
});

describe("controllerMetrics", () => {
  const c = cluster();
  c.run(submit(spec({ ntasks: 2, gpus: "2", partition: "gpu" })));
  c.run(submit(spec({ ntasks: 1 }), 11, ALICE));
  c.run(submit(spec({ ntasks: 1, hold: true }), 12, ALICE));
  const decisions = schedule(c.state, 20).decisions;
  c.run({ v: 1, type: "startJobs", at: 20, decisions });
  const sched = createSchedulerStats();
  sched.observe({ seconds: 0.002, started: decisions.length });
  const rpc = createRpcMetrics();
  rpc.observe("/spur.v1.Controller/Submit", 200, 0.004);
  rpc.observe("/../../etc/passwd", 404, 0.001);
  const text = renderMetrics(controllerMetrics({ state: c.state, sched, rpc: rpc.families(), version: "9.9.9", protocol: "1", startedAt: 5 }));
  const m = parseExposition(text);

  it("counts jobs by state, partition and user", () => {
    expect(decisions.length).toBe(2);
    expect(value(m.get("spur_jobs"), { state: "running", partition: "gpu", user: "root" })).toBe(1);
    expect(value(m.get("spur_jobs"), { state: "running", partition: "debug", user: "alice" })).toBe(1);
    expect(value(m.get("spur_jobs"), { state: "pending", user: "alice" })).toBe(1);
    expect(value(m.get("slurm_queue_running"))).toBe(2);
    expect(value(m.get("slurm_queue_pending"))).toBe(1);
    expect(value(m.get("slurm_user_jobs_pending"), { user: "alice" })).toBe(1);
  });

  it("reports node, CPU and GPU allocation under both name sets", () => {
    const gpuNode = c.state.partitions.find((p) => p.info.name === "gpu")?.nodeNames ?? [];
    const allocGpus = gpuNode.reduce((s, n) => s + (value(m.get("spur_node_gpus_alloc"), { node: n }) ?? 0), 0);
    expect(allocGpus).toBe(2);
    expect([value(m.get("slurm_gpus_total")), value(m.get("slurm_gpus_alloc")), value(m.get("slurm_gpus_utilization"))]).toEqual([16, 2, 0.125]);
    expect([value(m.get("slurm_cpus_total")), value(m.get("slurm_cpus_alloc")), value(m.get("slurm_cpus_idle"))]).toEqual([32, 3, 29]);
    expect((value(m.get("slurm_nodes_mix")) ?? 0) + (value(m.get("slurm_nodes_idle")) ?? 0)).toBe(6);
    expect(value(m.get("slurm_partition_cpus_total"), { partition: "gpu" })).toBe(16);
  });

  it("has scheduler, RPC and build families; strange RPC paths count as 'other'", () => {
    expect(value(m.get("spur_scheduler_jobs_started_total"))).toBe(2);
    expect(m.get("spur_scheduler_pass_seconds")?.type).toBe("histogram");
    expect(value(m.get("spur_rpc_requests_total"), { method: "spur.v1.Controller/Submit", code: "200" })).toBe(1);
    expect(value(m.get("spur_rpc_requests_total"), { method: "other", code: "404" })).toBe(1);
    expect(value(m.get("spur_build_info"), { version: "9.9.9", role: "spurctld" })).toBe(1);
    expect(m.has("spur_raft_term")).toBe(false);
    expect([...m.values()].filter((f) => f.type === "counter").every((f) => f.name.endsWith("_total"))).toBe(true);
  });

  it("shows Raft term, commit and follower lag once the Raft driver supplies them", () => {
    const raft = { term: 3, commitIndex: 40, appliedIndex: 39, lastIndex: 41, isLeader: true, peers: [{ id: "ctl2", matchIndex: 30 }] };
    const r = parseExposition(renderMetrics(controllerMetrics({ state: c.state, sched, rpc: [], raft, version: "1", protocol: "1", startedAt: 0 })));
    expect([value(r.get("spur_raft_term")), value(r.get("spur_raft_is_leader")), value(r.get("spur_raft_follower_lag_entries"), { peer: "ctl2" })]).toEqual([3, 1, 11]);
  });
});

describe("agentMetrics", () => {
  it("lists the GPU inventory and each job's live processes", () => {
    const c = cluster();
    const node = c.state.nodes.get("g1")?.info;
    if (node === undefined) throw new Error("no g1");
    const jobs = [{ jobId: 7, ended: false, processes: 3 }, { jobId: 5, ended: true, processes: 0 }];
    const m = parseExposition(renderMetrics(agentMetrics({ node, jobs, rpc: createRpcMetrics().families(), version: "1", protocol: "1", startedAt: 0 })));
    expect(value(m.get("spurd_gpus"), { node: "g1", model: "mi300x" })).toBe(8);
    expect(value(m.get("spurd_jobs"), { state: "running" })).toBe(1);
    expect(value(m.get("spurd_jobs"), { state: "ended_unreported" })).toBe(1);
    expect(m.get("spurd_job_processes")?.samples.map((s) => [s.labels.job_id, s.value])).toEqual([["5", 0], ["7", 3]]);
  });
});

describe("process families", () => {
  it("uses the Prometheus client libraries' names and types, and leaves out what could not be read", () => {
    const c = cluster();
    const facts = { cpuSeconds: 1.5, residentBytes: 3 << 20, heapUsedBytes: 1 << 20, heapCapacityBytes: 2 << 20, heapExternalBytes: 3 << 10, startTimeSeconds: 100, openFds: 12, maxFds: 1024, virtualBytes: 9 << 20 };
    const m = parseExposition(renderMetrics(controllerMetrics({ state: c.state, sched: createSchedulerStats(), rpc: [], version: "1", protocol: "1", startedAt: 100, process: facts })));
    expect([m.get("process_cpu_seconds_total")?.type, value(m.get("process_cpu_seconds_total"))]).toEqual(["counter", 1.5]);
    expect([value(m.get("process_resident_memory_bytes")), value(m.get("process_virtual_memory_bytes")), value(m.get("process_open_fds")), value(m.get("process_max_fds"))]).toEqual([3 << 20, 9 << 20, 12, 1024]);
    expect(["used", "capacity", "external"].map((kind) => value(m.get("spur_js_heap_bytes"), { kind }))).toEqual([1 << 20, 2 << 20, 3 << 10]);
    const { openFds: _o, maxFds: _m, virtualBytes: _v, ...bare } = facts;
    const node = c.state.nodes.get("n1")?.info;
    if (node === undefined) throw new Error("no n1");
    const agent = parseExposition(renderMetrics(agentMetrics({ node, jobs: [], rpc: [], version: "1", protocol: "1", startedAt: 100, process: bare })));
    expect(value(agent.get("process_start_time_seconds"))).toBe(100);
    expect(agent.has("process_open_fds")).toBe(false);
    expect(agent.has("process_virtual_memory_bytes")).toBe(false);
  });

  it("reads this process's own figures", () => {
    const f = readProcessFacts(5);
    expect(f.residentBytes).toBeGreaterThan(1 << 20);
    // (used is counted since the last collection, so it may pass the capacity between collections)
    expect(Math.min(f.heapUsedBytes, f.heapCapacityBytes)).toBeGreaterThan(0);
    expect(f.cpuSeconds).toBeGreaterThan(0);
    expect(f.openFds).toBeGreaterThan(2);
    expect(f.maxFds).toBeGreaterThanOrEqual(f.openFds ?? 0);
    expect(f.virtualBytes).toBeGreaterThan(f.residentBytes);
    expect(f.startTimeSeconds).toBe(5);
  });
});

describe("RPC totals for sdiag", () => {
  it("counts and times calls by method in the order first seen and by caller, and resets apart from the metrics", () => {
    const rpc = createRpcMetrics();
    rpc.observe("/spur.v1.Controller/Submit", 200, 0.002, 1000);
    rpc.observe("/spur.v1.Controller/Ping", 200, 0.001);
    rpc.observe("/spur.v1.Controller/Submit", 200, 0.004, 0);
    expect(rpc.totals().byMethod.map((m) => [m.method, m.count, Math.round(m.totalSec * 1e6)])).toEqual([
      ["spur.v1.Controller/Submit", 2, 6000],
      ["spur.v1.Controller/Ping", 1, 1000],
    ]);
    expect(rpc.totals().byUid.map((u) => [u.uid, u.count])).toEqual([[1000, 1], [0, 1]]);
    rpc.resetTotals();
    expect(rpc.totals()).toEqual({ byMethod: [], byUid: [] });
    expect(parseExposition(renderMetrics([...rpc.families()])).get("spur_rpc_requests_total")?.samples.length).toBe(2);
  });
});
