/**
 * purgeJobs: finished jobs leave the state after MinJobAge (sched/model/apply-purge.ts), re-checked
 * at the command's own time; arrays and het jobs leave whole; their usage stays counted
 * (sched/acct/purged-usage.ts) for the fair tree, classic fair share and the limits over time.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { purgeCandidates } from "../../../src/sched/model/apply-purge.ts";
import { fairTree } from "../../../src/sched/acct/fair-tree.ts";
import { jobUsageTables } from "../../../src/sched/acct/limits.ts";
import { fairshareFactors } from "../../../src/sched/plan/priority.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import { cluster, spec, submit } from "./builders.ts";

const CONF = (extra = "") => `ClusterName=t
MinJobAge=300
${extra}
NodeName=n[1-4] CPUs=4 RealMemory=4000
PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE
`;

const purge = (at: number, jobIds: number[]): Command => ({ v: 1, type: "purgeJobs", at, jobIds });
const end = (jobId: number, at: number, exitCode = 0): Command => ({ v: 1, type: "jobEnded", at, jobId, exitCode, exitSignal: 0, outcome: exitCode === 0 ? "COMPLETED" : "FAILED" });

function startAll(c: ReturnType<typeof cluster>, at: number): number[] {
  const r = schedule(c.state, at);
  c.run({ v: 1, type: "startJobs", at, decisions: r.decisions });
  return r.decisions.map((d) => d.jobId);
}

/** Job 1 ran 10..110 and completed; job 2 is still pending (held). */
function scene(extra = "") {
  const c = cluster(CONF(extra));
  c.run(submit(spec({ name: "done", cpusPerTask: 2 }), 10));
  startAll(c, 10);
  c.run(end(1, 110));
  c.run(submit(spec({ name: "held", hold: true }), 20));
  return c;
}

describe("purgeJobs", () => {
  it("removes a finished job only once it is MinJobAge old at the command's time", () => {
    const c = scene();
    expect(purgeCandidates(c.state, 409)).toEqual([]);
    const young = c.run(purge(409, [1]));
    expect(young.ids).toEqual([]);
    expect(c.state.jobs.has(1)).toBe(true);
    expect(purgeCandidates(c.state, 410)).toEqual([1]);
    const nextJobId = c.state.nextJobId;
    const r = c.run(purge(410, [1]));
    expect(r.ids).toEqual([1]);
    expect(r.errorCode).toBe("");
    expect(r.purged?.map((j) => [j.info.jobId, j.info.state, j.info.endTime])).toEqual([[1, "COMPLETED", 110]]);
    expect(c.state.jobs.has(1)).toBe(false);
    expect(c.state.nextJobId).toBe(nextJobId);
    // the same entry again (a replay, a second leader's proposal) changes nothing
    expect(c.run(purge(500, [1])).ids).toEqual([]);
  });

  it("skips stale ids: unknown, pending, running, or requeued since the leader looked", () => {
    const c = scene();
    c.run(submit(spec({ name: "runs" }), 30));
    startAll(c, 30);
    const r = c.run(purge(10_000, [2, 3, 99]));
    expect(r.ids).toEqual([]);
    expect([...c.state.jobs.keys()].sort()).toEqual([1, 2, 3]);
    // only the qualifying one of a mixed list leaves
    expect(c.run(purge(10_000, [2, 1, 3])).ids).toEqual([1]);
  });

  it("keeps a job array until every task (and its pending remainder) qualifies, then purges it whole", () => {
    const c = cluster(CONF());
    c.run(submit(spec({ name: "arr", array: "0-5", cpusPerTask: 4 }), 10));
    startAll(c, 10); // four tasks start, two stay pending in the meta record
    const running = [...c.state.jobs.values()].filter((j) => j.info.state === "RUNNING").map((j) => j.info.jobId);
    expect(running.length).toBe(4);
    for (const id of running) c.run(end(id, 20));
    expect(purgeCandidates(c.state, 5000)).toEqual([]);
    expect(c.run(purge(5000, running)).ids).toEqual([]);
    const rest = startAll(c, 30);
    expect(rest.length).toBe(2);
    for (const id of [...c.state.jobs.values()].filter((j) => j.info.state === "RUNNING").map((j) => j.info.jobId)) c.run(end(id, 40));
    // one task named is enough: the whole array leaves together
    expect(purgeCandidates(c.state, 339).length).toBe(0);
    expect(purgeCandidates(c.state, 340).length).toBe(6);
    const r = c.run(purge(340, [running[0] as number]));
    expect(r.ids.length).toBe(6);
    expect(c.state.jobs.size).toBe(0);
  });

  it("purges a heterogeneous job's components together", () => {
    const c = cluster(CONF());
    c.run({ ...(submit(spec({ name: "het", hold: true }), 10) as Extract<Command, { type: "submit" }>), het: [spec({ name: "het" })] });
    expect(c.state.jobs.size).toBe(2);
    c.run({ v: 1, type: "cancel", at: 20, filter: { jobIds: ["1"], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" }, signal: 9, batchOnly: false, by: { uid: 0, gid: 0, user: "root", group: "root" } });
    expect([...c.state.jobs.values()].map((j) => j.info.state)).toEqual(["CANCELLED", "CANCELLED"]);
    expect(purgeCandidates(c.state, 320)).toEqual([1, 2]);
    expect(c.run(purge(320, [2])).ids).toEqual([1, 2]);
  });

  it("keeps a job that a pending job's dependency names (its verdict stays, as Slurm keeps afterok:N(failed))", () => {
    const c = cluster(CONF());
    c.run(submit(spec({ name: "bad" }), 10));
    startAll(c, 10);
    c.run(end(1, 12, 1));
    c.run(submit(spec({ name: "waits", dependency: "afterok:1" }), 13));
    expect(schedule(c.state, 20).reasons.get(2)).toBe("DependencyNeverSatisfied");
    expect(purgeCandidates(c.state, 10_000)).toEqual([]);
    expect(c.run(purge(10_000, [1])).ids).toEqual([]);
    expect(schedule(c.state, 10_001).reasons.get(2)).toBe("DependencyNeverSatisfied");
    // once the dependent is gone too, both leave (the dependent only after its own MinJobAge)
    c.run({ v: 1, type: "cancel", at: 10_002, filter: { jobIds: ["2"], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" }, signal: 9, batchOnly: false, by: { uid: 0, gid: 0, user: "root", group: "root" } });
    expect(purgeCandidates(c.state, 10_003)).toEqual([1]);
    expect(c.run(purge(10_302, [1, 2])).ids).toEqual([1, 2]);
  });

  it("purges nothing with MinJobAge=0 (Slurm keeps every record then)", () => {
    const c = cluster(CONF().replace("MinJobAge=300", "MinJobAge=0"));
    c.run(submit(spec({ name: "done" }), 10));
    startAll(c, 10);
    c.run(end(1, 20));
    expect(purgeCandidates(c.state, 1e9)).toEqual([]);
    expect(c.run(purge(1e9, [1])).ids).toEqual([]);
  });

  it("keeps the purged jobs' usage: fair tree, classic fair share and the limits over time read the same", () => {
    const c = scene("PriorityType=priority/multifactor\nPriorityDecayHalfLife=00:10:00");
    c.run(submit(spec({ name: "two", cpusPerTask: 3 }), 200));
    startAll(c, 200);
    c.run(end(3, 260));
    const at = 1000;
    const now = 1500;
    const H = c.state.config.sched.decayHalfLifeSec;
    expect(H).toBe(600);
    const before = { tree: fairTree(c.state, now, H).rows, tables: jobUsageTables(c.state, now), classic: fairshareFactors(c.state, now, H) };
    expect(c.run(purge(at, [1, 3])).ids).toEqual([1, 3]);
    const after = { tree: fairTree(c.state, now, H).rows, tables: jobUsageTables(c.state, now), classic: fairshareFactors(c.state, now, H) };
    const rootUser = (rows: typeof before.tree) => rows.find((r) => r.user === "root");
    expect(rootUser(before.tree)?.rawUsage ?? 0).toBeGreaterThan(0);
    expect(rootUser(after.tree)?.rawUsage).toBeCloseTo(rootUser(before.tree)?.rawUsage ?? -1, 6);
    for (const [id, u] of before.tables.byAssoc) {
      expect(after.tables.byAssoc.get(id)?.tresSec.cpu).toBeCloseTo(u.tresSec.cpu, 6);
      expect(after.tables.byAssoc.get(id)?.wallSec).toBeCloseTo(u.wallSec, 6);
    }
    expect(after.tables.byQos.get("normal")?.tresSec.cpu).toBeCloseTo(before.tables.byQos.get("normal")?.tresSec.cpu ?? -1, 6);
    expect([...after.classic]).toEqual([...before.classic]);
    // a second purge later decays what is stored to its own time first
    c.run(submit(spec({ name: "three", cpusPerTask: 1 }), 1100));
    startAll(c, 1100);
    c.run(end(4, 1200));
    const later = 2500;
    const mid = fairTree(c.state, later, H).rows;
    expect(c.run(purge(2000, [4])).ids).toEqual([4]);
    expect(rootUser(fairTree(c.state, later, H).rows)?.rawUsage).toBeCloseTo(rootUser(mid)?.rawUsage ?? -1, 6);
  });
});
