/**
 * ctld/job-phases: the running and finished jobs listed once per applied index, and the due
 * loop's and purge's answers from those lists equal to a walk over every job, as jobs are
 * submitted, started, ended and purged, with the lists made before each change asked again.
 */
import { describe, expect, it } from "vitest";
import { jobPhases } from "../../../src/ctld/job-phases.ts";
import { dueCommands } from "../../../src/sched/model/due.ts";
import { purgeCandidates } from "../../../src/sched/model/apply-purge.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { CONF, cluster, spec, submit } from "../sched/builders.ts";

const never = (): number => 0;

describe("job phases", () => {
  it("are made again once a command is applied, and the due and purge answers are those of every job", () => {
    const c = cluster(`${CONF}MinJobAge=30\n`);
    const ids = (list: readonly { info: { jobId: number } }[]): number[] => list.map((j) => j.info.jobId);
    const same = (now: number): void => {
      const phases = jobPhases(c.state);
      expect(dueCommands(c.state, now, never, phases.active)).toEqual(dueCommands(c.state, now, never));
      expect(purgeCandidates(c.state, now, undefined, phases.finished)).toEqual(purgeCandidates(c.state, now));
    };
    for (let i = 0; i < 6; i++) c.run(submit(spec({ timeLimitMin: 1 + (i % 3), ntasks: 2 }), 10));
    const first = jobPhases(c.state);
    expect(jobPhases(c.state)).toBe(first);
    expect([ids(first.active), ids(first.finished)]).toEqual([[], []]);
    c.run({ v: 1, type: "startJobs", at: 100, decisions: schedule(c.state, 100).decisions });
    const running = ids(jobPhases(c.state).active);
    expect(running.length).toBeGreaterThan(0);
    expect(running).toEqual([...c.state.jobs.values()].filter((j) => j.info.state === "RUNNING").map((j) => j.info.jobId));
    same(160);
    same(400);
    // a job ends: it leaves the running list for the finished one
    c.run({ v: 1, type: "jobEnded", at: 170, jobId: running[0] as number, exitCode: 0, exitSignal: 0, outcome: "" });
    expect(ids(jobPhases(c.state).active)).not.toContain(running[0]);
    expect(ids(jobPhases(c.state).finished)).toEqual([running[0]]);
    same(180);
    same(500);
    // purged: the finished list forgets it
    const purge = purgeCandidates(c.state, 500, undefined, jobPhases(c.state).finished);
    expect(purge).toEqual([running[0]]);
    c.run({ v: 1, type: "purgeJobs", at: 500, jobIds: purge });
    expect(ids(jobPhases(c.state).finished)).toEqual([]);
    same(600);
  });
});
