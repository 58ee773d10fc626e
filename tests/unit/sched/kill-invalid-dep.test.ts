/**
 * --kill-on-invalid-dep=yes and DependencyParameters=kill_invalid_depend: the
 * scheduler lists a pending job whose dependency can never be satisfied, and
 * applying the controller command cancels it (CANCELLED, reason kept as
 * DependencyNeverSatisfied), as Slurm does (conformance x-dep-kill-on-invalid).
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { cluster, spec, submit } from "./builders.ts";

const FOUR = (extra = "") => `ClusterName=t
${extra}
NodeName=n[1-4] CPUs=4 RealMemory=4000
PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE
`;

/** Job 1 fails; job 2 (afterok:1) asks to be killed, job 3 (afterok:1) does not. */
function scene(extra = "") {
  const c = cluster(FOUR(extra));
  c.run(submit(spec({ name: "bad" }), 10));
  const r = schedule(c.state, 10);
  c.run({ v: 1, type: "startJobs", at: 10, decisions: r.decisions });
  c.run({ v: 1, type: "jobEnded", at: 12, jobId: 1, exitCode: 1, exitSignal: 0, outcome: "FAILED" });
  c.run(submit(spec({ name: "killdep", dependency: "afterok:1", killOnInvalidDep: true }), 13));
  c.run(submit(spec({ name: "keep", dependency: "afterok:1" }), 13));
  return c;
}

describe("dependency never satisfied", () => {
  it("cancels only the job that asked for it, keeping the reason", () => {
    const c = scene();
    const r = schedule(c.state, 20);
    expect(r.reasons.get(2)).toBe("DependencyNeverSatisfied");
    expect(r.reasons.get(3)).toBe("DependencyNeverSatisfied");
    expect(r.invalidDeps).toEqual([2]);
    const applied = c.run({ v: 1, type: "dependencyNeverSatisfied", at: 20, jobIds: r.invalidDeps });
    expect(applied.events).toEqual([{ type: "jobFinished", jobId: 2 }]);
    expect(c.state.jobs.get(2)?.info).toMatchObject({ state: "CANCELLED", reason: "DependencyNeverSatisfied", endTime: 20 });
    expect(c.state.jobs.get(3)?.info.state).toBe("PENDING");
    // a replay (or a stale pass) changes nothing
    expect(c.run({ v: 1, type: "dependencyNeverSatisfied", at: 21, jobIds: [2] }).ids).toEqual([]);
  });

  it("cancels every such job with DependencyParameters=kill_invalid_depend", () => {
    const c = scene("DependencyParameters=kill_invalid_depend");
    expect(schedule(c.state, 20).invalidDeps).toEqual([2, 3]);
  });

  it("keeps a job that said --kill-on-invalid-dep=no, whatever the site's setting", () => {
    const c = scene("DependencyParameters=kill_invalid_depend");
    c.run(submit(spec({ name: "nokill", dependency: "afterok:1", noKillOnInvalidDep: true }), 14));
    expect(schedule(c.state, 20).invalidDeps).toEqual([2, 3]);
  });

  it("leaves a job whose dependency may still be satisfied", () => {
    const c = cluster(FOUR());
    c.run(submit(spec({ name: "runs" }), 10));
    c.run({ v: 1, type: "startJobs", at: 10, decisions: schedule(c.state, 10).decisions });
    c.run(submit(spec({ dependency: "afterok:1", killOnInvalidDep: true }), 11));
    const r = schedule(c.state, 20);
    expect(r.reasons.get(2)).toBe("Dependency");
    expect(r.invalidDeps).toEqual([]);
  });
});
