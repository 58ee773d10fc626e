/**
 * Scheduler decisions are computed from a snapshot and committed later: whatever was
 * committed in between (a cancel of one array task, a hold, a node going down, a
 * partition change) must make apply() reject the stale parts and keep the rest, never
 * throw and never leave half a change (issue 14 part 2, Nomad's plan-applier rule).
 */
import { describe, expect, it } from "vitest";
import { apply } from "../../../src/sched/model/apply.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { planPreemption } from "../../../src/sched/plan/preempt.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import { ALICE, ROOT, cluster, spec, submit } from "./builders.ts";

const cancel = (ids: string[], at = 11): Command => ({
  v: 1, type: "cancel", at, signal: 0, batchOnly: false, by: ROOT,
  filter: { jobIds: ids, user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" },
});
const update = (ids: string[], action: string, fields: Record<string, string> = {}, at = 11): Command => ({ v: 1, type: "updateJob", at, jobIds: ids, action, fields, by: ROOT });

describe("stale start decisions (the array-cancel race)", () => {
  it("a decision for an array task cancelled after the pass is rejected; the other tasks start", () => {
    const c = cluster();
    const [id] = c.run(submit(spec({ array: "0-3" }))).ids;
    const pass = schedule(c.state, 10);
    expect(pass.decisions.map((d) => d.arrayTaskId)).toEqual([0, 1, 2, 3]);
    // scancel 1_0 1_1, committed between the pass and its decisions
    c.run(cancel([`${id}_0`, `${id}_1`]));
    const r = apply(c.state, { v: 1, type: "startJobs", at: 12, decisions: pass.decisions });
    expect(r.error).toBe("");
    const tasks = [...c.state.jobs.values()].map((j) => [j.info.arrayTaskId, j.info.state]);
    expect(tasks).toEqual([[2, "RUNNING"], [3, "RUNNING"]]);
    expect(r.ids.length).toBe(2);
  });

  it("the cancelled task in the middle of the decisions leaves no half change", () => {
    const c = cluster();
    const [id] = c.run(submit(spec({ array: "0-3" }))).ids;
    const pass = schedule(c.state, 10);
    c.run(cancel([`${id}_2`]));
    const r = apply(c.state, { v: 1, type: "startJobs", at: 12, decisions: pass.decisions });
    expect(r.ids.length).toBe(3);
    const running = [...c.state.jobs.values()].filter((j) => j.info.state === "RUNNING").map((j) => j.info.arrayTaskId).sort();
    expect(running).toEqual([0, 1, 3]);
    const allocCpus = [...c.state.nodes.values()].reduce((n, node) => n + node.info.allocCpus, 0);
    expect(allocCpus).toBe(3);
  });

  it("a whole array cancelled after the pass: nothing starts", () => {
    const c = cluster();
    const [id] = c.run(submit(spec({ array: "0-3" }))).ids;
    const pass = schedule(c.state, 10);
    c.run(cancel([String(id)]));
    const r = apply(c.state, { v: 1, type: "startJobs", at: 12, decisions: pass.decisions });
    expect(r.ids).toEqual([]);
    expect([...c.state.nodes.values()].every((n) => n.info.allocCpus === 0)).toBe(true);
  });

  it("a job held after the pass does not start", () => {
    const c = cluster();
    const [id] = c.run(submit(spec(), 10, ALICE)).ids;
    const pass = schedule(c.state, 10);
    c.run(update([String(id)], "hold"));
    const r = apply(c.state, { v: 1, type: "startJobs", at: 12, decisions: pass.decisions });
    expect(r.ids).toEqual([]);
    expect(c.state.jobs.get(id ?? 0)?.info.state).toBe("PENDING");
  });

  it("a node drained after the pass, or a job moved to another partition, rejects the decision", () => {
    const c = cluster();
    const [a] = c.run(submit(spec({ nodelist: "n1" }))).ids;
    const [b] = c.run(submit(spec({ nodelist: "n2" }))).ids;
    const pass = schedule(c.state, 10);
    c.run({ v: 1, type: "updateNode", at: 11, nodes: ["n1"], state: "DRAIN", reason: "x", by: ROOT });
    c.run(update([String(b)], "update", { Partition: "gpu" }));
    const r = apply(c.state, { v: 1, type: "startJobs", at: 12, decisions: pass.decisions });
    expect(r.ids).toEqual([]);
    expect([c.state.jobs.get(a ?? 0)?.info.state, c.state.jobs.get(b ?? 0)?.info.state]).toEqual(["PENDING", "PENDING"]);
  });

  it("replaying a log with such a race rebuilds the same state", () => {
    const c = cluster();
    const [id] = c.run(submit(spec({ array: "0-3" }))).ids;
    const pass = schedule(c.state, 10);
    c.run(cancel([`${id}_0`, `${id}_1`]));
    c.run({ v: 1, type: "startJobs", at: 12, decisions: pass.decisions });
    const again = cluster(undefined, false);
    for (const cmd of c.log) expect(() => again.run(cmd)).not.toThrow();
    expect(JSON.stringify([...again.state.jobs])).toBe(JSON.stringify([...c.state.jobs]));
  });

  it("a malformed decision between two valid ones is rejected alone, before it changes anything", () => {
    const c = cluster();
    c.run(submit(spec()));
    c.run(submit(spec()));
    c.run(submit(spec()));
    const pass = schedule(c.state, 10);
    expect(pass.decisions.length).toBe(3);
    const broken = { ...pass.decisions[1], alloc: null } as unknown as (typeof pass.decisions)[number];
    const r = apply(c.state, { v: 1, type: "startJobs", at: 12, decisions: [pass.decisions[0], broken, pass.decisions[2]] as never });
    expect(r.errorCode).toBe("");
    expect([...c.state.jobs.values()].map((j) => j.info.state)).toEqual(["RUNNING", "PENDING", "RUNNING"]);
    expect(r.items.map((i) => i.error.startsWith("stale start decision: malformed"))).toEqual([true]);
  });

  it("a SUSPEND preemption whose preemptor was cancelled since the plan suspends nobody", () => {
    const c = cluster(`ClusterName=p
DefMemPerCPU=100
PreemptType=preempt/partition_prio
PreemptMode=SUSPEND
NodeName=n1 CPUs=4 RealMemory=4000
PartitionName=low Nodes=n1 Default=YES PriorityTier=1
PartitionName=high Nodes=n1 PriorityTier=2
`);
    c.run(submit(spec({ ntasks: 4, timeLimitMin: 60 }), 10));
    c.run({ v: 1, type: "startJobs", at: 20, decisions: schedule(c.state, 20).decisions });
    const [preemptor] = c.run(submit(spec({ partition: "high", ntasks: 4, timeLimitMin: 10 }), 30)).ids;
    const r = schedule(c.state, 40);
    const plan = planPreemption(c.state, r.reasons, r.priorities);
    expect(plan?.start?.jobId).toBe(preemptor);
    c.run(cancel([String(preemptor)], 41));
    const applied = apply(c.state, { v: 1, type: "preempt", at: 42, ...plan! });
    expect(applied.events).toEqual([]);
    expect(c.state.jobs.get(1)?.info.state).toBe("RUNNING");
    expect(c.state.nodes.get("n1")?.info.allocCpus).toBe(4);
  });
});

describe("other commands the leader decided on an older state", () => {
  it("a time limit raised before the timeout entry commits, a node that registered again, a launch failure of an earlier run: ignored", () => {
    const c = cluster();
    const [id] = c.run(submit(spec({ timeLimitMin: 1 }))).ids;
    c.run({ v: 1, type: "startJobs", at: 10, decisions: schedule(c.state, 10).decisions });
    const job = c.state.jobs.get(id ?? 0)!;
    const host = job.info.batchHost;
    // The leader saw the limit reached at 70; an admin raised it before that entry committed.
    c.run(update([String(id)], "update", { TimeLimit: "10" }, 69));
    expect(c.run({ v: 1, type: "timeLimitReached", at: 70, jobId: id ?? 0 }).events).toEqual([]);
    expect(job.endRequested).toBe("");
    // The node was found silent at 80, but its agent registered again at 81.
    const node = c.state.nodes.get(host)!;
    c.run({ v: 1, type: "registerNode", at: 81, node: { ...structuredClone(node.info) }, runningJobIds: [] });
    c.run({ v: 1, type: "nodeFail", at: 80, node: host, reason: "Not responding" });
    expect([node.down, job.info.state]).toEqual([false, "RUNNING"]);
    // A launch failure reported for another node than the job's batch host belongs to an earlier run.
    const other = host === "n1" ? "n2" : "n1";
    c.run({ v: 1, type: "launchFailed", at: 90, jobId: id ?? 0, node: other, reason: "x" });
    expect(job.info.state).toBe("RUNNING");
    // The same commands when they still hold do apply.
    expect(c.run({ v: 1, type: "timeLimitReached", at: 10 + 600, jobId: id ?? 0 }).events.length).toBe(1);
    c.run({ v: 1, type: "nodeFail", at: 700, node: host, reason: "Not responding" });
    expect([node.down, job.info.state]).toEqual([true, "NODE_FAIL"]);
  });
});
