/**
 * scancel/scontrol's id resolution (select-jobs.ts targetsForId) through the job table's family
 * index gives what a walk over every job gives, on random states with arrays split by the
 * scheduler, tasks ended and requeued, and plain and unknown ids.
 */
import { describe, expect, it } from "vitest";
import { targetsForId } from "../../../src/sched/model/select-jobs.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { createRng } from "../../../src/lib/rng.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";
import { ROOT, cluster, spec, submit } from "./builders.ts";

/** The ids' records as a walk over the table finds them (what targetsForId did before the index). */
function walked(state: ClusterState, jobId: number) {
  return [...state.jobs.values()].filter((j) => j.info.arrayJobId === jobId);
}

describe("targetsForId with the family index (seeded)", () => {
  it("names the records a walk names, in table order for a whole array", () => {
    const seeds = process.env.SEED ? [Number(process.env.SEED)] : Array.from({ length: 40 }, (_, i) => i + 1);
    let arrays = 0;
    for (const seed of seeds) {
      const rng = createRng(seed);
      const c = cluster();
      for (let step = 0; step < 12; step++) {
        const roll = rng.next();
        if (roll < 0.4) c.run(submit(spec(rng.next() < 0.6 ? { array: `1-${rng.int(2, 6)}`, ntasks: rng.int(1, 3) } : { ntasks: rng.int(1, 4) }), 10 + step));
        else if (roll < 0.7) {
          const r = schedule(c.state, 20 + step);
          if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at: 20 + step, decisions: r.decisions });
        } else {
          const running = [...c.state.jobs.values()].filter((j) => j.info.state === "RUNNING");
          const job = running[rng.int(0, Math.max(0, running.length - 1))];
          if (job !== undefined) {
            const requeue = rng.next() < 0.3;
            c.run(requeue
              ? { v: 1, type: "updateJob", at: 30 + step, jobIds: [String(job.info.jobId)], action: "requeue", fields: {}, by: ROOT }
              : { v: 1, type: "jobEnded", at: 30 + step, jobId: job.info.jobId, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" });
          }
        }
      }
      const ids = new Set<number>();
      for (const j of c.state.jobs.values()) {
        ids.add(j.info.jobId);
        if (j.info.arrayJobId > 0) ids.add(j.info.arrayJobId);
      }
      ids.add(c.state.nextJobId + 5); // unknown
      for (const id of ids) {
        const whole = walked(c.state, id);
        if (whole.length > 1) arrays++;
        const where = `SEED=${seed} id ${id}`;
        const got = targetsForId(c.state, String(id));
        const want = whole.length > 0 ? whole.map((job) => ({ id: String(id), job, pendingTasks: [] })) : [{ id: String(id), job: c.state.jobs.get(id), pendingTasks: [] }];
        expect(got, where).toEqual(want);
        for (const task of [1, 2, 3, 7]) {
          const element = whole.find((j) => j.info.arrayTaskId === task);
          const meta = whole.find((j) => j.arrayPending.includes(task));
          const one = targetsForId(c.state, `${id}_${task}`);
          expect(one.map((t) => [t.job?.info.jobId, t.pendingTasks]), `${where}_${task}`).toEqual([
            element ? [element.info.jobId, []] : meta ? [meta.info.jobId, [task]] : [undefined, []],
          ]);
        }
      }
    }
    expect(arrays).toBeGreaterThan(20); // arrays of several records were looked at
  });
});
