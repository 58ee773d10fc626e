/**
 * Heterogeneous jobs in the controller: submission creates one record per component with
 * consecutive ids; the scheduler starts every component in the same pass or none (all or
 * nothing, as Slurm's); apply() re-checks the components together and undoes a half start;
 * the leader's end ends the others; scancel of one pending component is refused.
 */
import { describe, expect, it } from "vitest";
import { apply } from "../../../src/sched/model/apply.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import type { JobSpecP } from "../../../src/sched/model/types.ts";
import { ROOT, cluster, spec } from "../sched/builders.ts";
import { runsBatchScript } from "../../../src/sched/model/het.ts";

const CONF = `ClusterName=test
DefMemPerCPU=256
NodeName=n[1-4] CPUs=4 RealMemory=4000 Port=17001
PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE
PartitionName=small Nodes=n[1-2] MaxTime=INFINITE
`;

const het = (specs: JobSpecP[], at = 10): Command => ({ v: 1, type: "submit", at, spec: specs[0] as JobSpecP, by: ROOT, priority: 0, het: specs.slice(1) });
const cancel = (ids: string[], at = 11): Command => ({
  v: 1, type: "cancel", at, signal: 0, batchOnly: false, by: ROOT,
  filter: { jobIds: ids, user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" },
});
const states = (c: ReturnType<typeof cluster>): string[] => [...c.state.jobs.values()].map((j) => `${j.info.jobId}:${j.info.state}`);

describe("het job submission", () => {
  it("creates one record per component: consecutive ids, HetJobId/Offset/IdSet, BatchFlag=1 on each (oracle), only the leader runs the script", () => {
    const c = cluster(CONF);
    const r = c.run(het([spec({ ntasks: 1 }), spec({ ntasks: 2, partition: "small" })]));
    expect(r.error).toBe("");
    expect(r.ids).toEqual([1]);
    const infos = [1, 2].map((id) => c.state.jobs.get(id)?.info);
    expect(infos.map((i) => [i?.hetJobId, i?.hetJobOffset, i?.hetJobIdSet, i?.partition, i?.batchFlag])).toEqual([
      [1, 0, "1-2", "debug", true],
      [1, 1, "1-2", "small", true],
    ]);
    expect([1, 2].map((id) => runsBatchScript(c.state.jobs.get(id)?.info ?? infos[0]!))).toEqual([true, false]);
    expect(c.state.nextJobId).toBe(3);
  });

  it("one refused component refuses the whole job and creates nothing", () => {
    const c = cluster(CONF);
    const r = c.run(het([spec(), spec({ partition: "nope" })]));
    expect(r.error).toContain("Invalid partition name specified");
    expect(c.state.jobs.size).toBe(0);
    expect(c.state.nextJobId).toBe(1);
  });

  it("each component excludes the nodes the others require (oracle 22.05: -w n1 : -N1 : -x n4 -w n3)", () => {
    const c = cluster();
    const r = c.run(het([spec({ nodelist: "n1", hold: true }), spec({ hold: true }), spec({ nodelist: "n3", exclude: "n4", hold: true })]));
    expect(r.error).toBe("");
    const ids = [0, 1, 2].map((o) => (r.ids[0] as number) + o);
    expect(ids.map((id) => c.state.jobs.get(id)?.info.excNodelist)).toEqual(["n3", "n[1,3]", "n[1,4]"]);
  });

  it("refuses an array of het jobs", () => {
    const c = cluster(CONF);
    expect(c.run(het([spec({ array: "0-1" }), spec()])).error).toBe("Invalid job array specification");
  });
});

describe("het job scheduling: all or nothing", () => {
  it("starts every component in one pass when all fit, on their own partitions' nodes", () => {
    const c = cluster(CONF);
    c.run(het([spec({ ntasks: 4, nodesMin: 1, nodesMax: 1 }), spec({ ntasks: 2, partition: "small" })]));
    const pass = schedule(c.state, 20);
    expect(pass.decisions.map((d) => d.jobId)).toEqual([1, 2]);
    const small = new Set(["n1", "n2"]);
    expect(pass.decisions[1]?.alloc.every((a) => small.has(a.node))).toBe(true);
    const r = apply(c.state, { v: 1, type: "startJobs", at: 21, decisions: pass.decisions });
    expect(r.items).toEqual([]);
    expect(states(c)).toEqual(["1:RUNNING", "2:RUNNING"]);
    // only the leader launches a batch script
    expect(r.events.filter((e) => e.type === "launchBatch")).toEqual([{ type: "launchBatch", jobId: 1 }]);
  });

  it("starts none while one component cannot: both pend with the same reason, and nothing is held", () => {
    const c = cluster(CONF);
    // small has 8 CPUs: component 1 asks for 12
    c.run(het([spec({ ntasks: 1 }), spec({ ntasks: 3, cpusPerTask: 4, partition: "small" })]));
    c.run({ v: 1, type: "submit", at: 11, spec: spec({ ntasks: 2, cpusPerTask: 4, partition: "small" }), by: ROOT, priority: 0 });
    const pass = schedule(c.state, 20);
    expect(pass.decisions.some((d) => d.jobId === 1 || d.jobId === 2)).toBe(false);
    expect(pass.reasons.get(1)).toBe(pass.reasons.get(2));
  });

  it("a het job that can never start whole (5 exclusive nodes on 4) holds no job behind it back", () => {
    const c = cluster(CONF);
    c.run(het([spec({ nodesMin: 3, exclusive: true }), spec({ nodesMin: 2, exclusive: true })]));
    c.run({ v: 1, type: "submit", at: 11, spec: spec({ nodesMin: 2, exclusive: true }), by: ROOT, priority: 0 });
    const pass = schedule(c.state, 20);
    expect(pass.decisions.map((d) => d.jobId)).toEqual([3]);
    expect([pass.reasons.get(1), pass.reasons.get(2)]).toEqual(["Resources", "Resources"]);
  });

  it("components never share a node (oracle: `salloc -N1 -n1 : -N1 -n1` on idle 4-CPU nodes gets n1 and n2; five such components on 4 nodes never start)", () => {
    const c = cluster("ClusterName=t\nDefMemPerCPU=256\nNodeName=n[1-2] CPUs=4 RealMemory=4000 Port=17001\nPartitionName=debug Nodes=n[1-2] Default=YES MaxTime=INFINITE\n");
    c.run(het([spec({ ntasks: 1 }), spec({ ntasks: 1 })]));
    c.run(het([spec({ ntasks: 1 }), spec({ ntasks: 1 }), spec({ ntasks: 1 })], 11));
    const pass = schedule(c.state, 20);
    expect(pass.decisions.map((d) => [d.jobId, d.alloc.map((a) => a.node)])).toEqual([[1, ["n1"]], [2, ["n2"]]]);
    expect([3, 4, 5].map((id) => pass.reasons.get(id))).toEqual(["Resources", "Resources", "Resources"]);
    // the three-component job could never start whole on two nodes: it reserves nothing and holds nothing back
    c.run({ v: 1, type: "submit", at: 12, spec: spec({ ntasks: 2 }), by: ROOT, priority: 0 });
    expect(schedule(c.state, 21).decisions.map((d) => d.jobId)).toEqual([1, 2, 6]);
  });

  it("apply undoes a half start: a component whose share was taken since the pass keeps the whole job pending", () => {
    const c = cluster(CONF);
    c.run(het([spec({ ntasks: 1, nodelist: "n4" }), spec({ ntasks: 8, partition: "small" })]));
    const pass = schedule(c.state, 20);
    expect(pass.decisions.length).toBe(2);
    // another job takes the small partition's nodes first
    c.run({ v: 1, type: "submit", at: 21, spec: spec({ ntasks: 8, partition: "small" }), by: ROOT, priority: 0 });
    const taken = { jobId: 3, arrayTaskId: -1, alloc: pass.decisions[1]?.alloc ?? [] };
    expect(apply(c.state, { v: 1, type: "startJobs", at: 22, decisions: [taken] }).ids).toEqual([3]);
    const before = [...c.state.nodes.values()].map((n) => n.info.allocCpus);
    const r = apply(c.state, { v: 1, type: "startJobs", at: 23, decisions: pass.decisions });
    expect(r.items.map((i) => i.id)).toEqual(["1"]);
    expect(states(c)).toEqual(["1:PENDING", "2:PENDING", "3:RUNNING"]);
    expect([...c.state.nodes.values()].map((n) => n.info.allocCpus)).toEqual(before);
  });

  it("a decision set missing a component is refused whole", () => {
    const c = cluster(CONF);
    c.run(het([spec(), spec()]));
    const pass = schedule(c.state, 20);
    const r = apply(c.state, { v: 1, type: "startJobs", at: 21, decisions: pass.decisions.slice(0, 1) });
    expect(r.items[0]?.error).toContain("not every het job component");
    expect(states(c)).toEqual(["1:PENDING", "2:PENDING"]);
  });
});

describe("het job ending and cancelling", () => {
  const started = () => {
    const c = cluster(CONF);
    c.run(het([spec(), spec({ ntasks: 2 })]));
    apply(c.state, { v: 1, type: "startJobs", at: 21, decisions: schedule(c.state, 20).decisions });
    return c;
  };

  it("the leader's end ends every component with its state and exit code, and frees their nodes", () => {
    const c = started();
    c.run({ v: 1, type: "jobEnded", at: 30, jobId: 1, exitCode: 3, exitSignal: 0, outcome: "FAILED" });
    const info = c.state.jobs.get(2)?.info;
    expect([info?.state, info?.exitCode, info?.endTime]).toEqual(["FAILED", 3, 30]);
    expect([...c.state.nodes.values()].every((n) => n.info.allocCpus === 0)).toBe(true);
  });

  it("scancel of one pending component is refused (Slurm: the whole job or nothing while pending)", () => {
    const c = cluster(CONF);
    c.run(het([spec({ hold: true }), spec()]));
    const r = c.run(cancel(["1+1"]));
    expect(r.items).toEqual([{ id: "1+1", error: "Operation not permitted on individual component of heterogeneous job", errorCode: 2108 }]);
    expect(c.run(cancel(["2"])).items[0]?.error).toBe("Operation not permitted on individual component of heterogeneous job");
    expect(states(c)).toEqual(["1:PENDING", "2:PENDING"]);
  });

  it("scancel of the leader's id cancels every component", () => {
    const c = cluster(CONF);
    c.run(het([spec({ hold: true }), spec()]));
    c.run(cancel(["1"]));
    expect(states(c)).toEqual(["1:CANCELLED", "2:CANCELLED"]);
  });

  it("a started component may be cancelled alone; the rest keep running", () => {
    const c = started();
    c.run(cancel(["1+1"]));
    expect(states(c)).toEqual(["1:RUNNING", "2:CANCELLED"]);
  });

  it("requeue, suspend and resume act on the whole job: one component alone is refused; a requeue of the leader takes the rest along", () => {
    const c = started();
    const upd = (ids: string[], action: string): Command => ({ v: 1, type: "updateJob", at: 40, jobIds: ids, action, fields: {}, by: ROOT });
    expect(c.run(upd(["1+1"], "requeue")).items[0]?.error).toBe("Operation not permitted on individual component of heterogeneous job");
    expect(c.run(upd(["2"], "suspend")).items[0]?.error).toBe("Operation not permitted on individual component of heterogeneous job");
    c.run({ v: 1, type: "jobEnded", at: 41, jobId: 1, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" });
    expect(states(c)).toEqual(["1:COMPLETED", "2:COMPLETED"]);
    const r = c.run(upd(["1"], "requeue"));
    expect(r.items).toEqual([{ id: "1", error: "", errorCode: 0 }]);
    expect(states(c)).toEqual(["1:PENDING", "2:PENDING"]);
  });

  it("a component beside the leader that reaches its own time limit ends TIMEOUT at once; the leader runs on", () => {
    const c = cluster(CONF);
    c.run(het([spec({ timeLimitMin: 10 }), spec({ timeLimitMin: 1 })]));
    apply(c.state, { v: 1, type: "startJobs", at: 21, decisions: schedule(c.state, 20).decisions });
    c.run({ v: 1, type: "timeLimitReached", at: 81, jobId: 2 });
    expect(states(c)).toEqual(["1:RUNNING", "2:TIMEOUT"]);
    expect(c.state.jobs.get(2)?.info.reason).toBe("TimeLimit");
  });

  it("the leader's node failing ends every component NODE_FAIL, also those on other nodes", () => {
    const c = cluster(CONF);
    c.run(het([spec({ nodelist: "n4" }), spec({ partition: "small" })]));
    apply(c.state, { v: 1, type: "startJobs", at: 21, decisions: schedule(c.state, 20).decisions });
    expect(c.state.jobs.get(2)?.info.nodelist).not.toBe("n4");
    c.run({ v: 1, type: "nodeFail", at: 50, node: "n4", reason: "Not responding" });
    expect(states(c)).toEqual(["1:NODE_FAIL", "2:NODE_FAIL"]);
    expect([...c.state.nodes.values()].every((n) => n.info.allocCpus === 0)).toBe(true);
  });
});
