/**
 * The job table's array index: a lookup by id returns the job and every record of its
 * array, in the order a walk of the table would, and follows set/delete/clear. The same
 * answer as the old walk over every job, for random tables (seeded).
 */
import { describe, expect, it } from "vitest";
import { JobTable, jobsNamed } from "../../../src/sched/model/job-table.ts";
import type { JobRecord } from "../../../src/sched/model/types.ts";
import { createRng } from "../../../src/lib/rng.ts";

const rec = (jobId: number, arrayJobId = 0): JobRecord => ({ info: { jobId, arrayJobId } }) as unknown as JobRecord;
const walk = (t: Map<number, JobRecord>, id: number) => [...t.values()].filter((j) => j.info.jobId === id || j.info.arrayJobId === id).map((j) => j.info.jobId);

describe("job table", () => {
  it("finds a job, an array's tasks (parent remainder last), and forgets deleted ones", () => {
    const t = new JobTable();
    t.set(1, rec(1));
    t.set(2, rec(2, 2));
    // split task 0 of array 2 as apply-run does: element in, parent re-inserted at the end
    t.set(3, rec(3, 2));
    t.delete(2);
    t.set(2, rec(2, 2));
    t.set(4, rec(4));
    expect(jobsNamed(t, [2]).map((j) => j.info.jobId)).toEqual([3, 2]);
    expect(jobsNamed(t, [3]).map((j) => j.info.jobId)).toEqual([3]);
    expect(jobsNamed(t, [1]).map((j) => j.info.jobId)).toEqual([1]);
    expect(jobsNamed(t, [9])).toEqual([]);
    t.delete(3);
    expect(jobsNamed(t, [2]).map((j) => j.info.jobId)).toEqual([2]);
    t.clear();
    expect(jobsNamed(t, [2])).toEqual([]);
    expect(t.size).toBe(0);
  });

  it("answers what a walk of the whole table answers (random arrays and splits)", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const rng = createRng(seed);
      const t = new JobTable();
      let next = 1;
      const arrays: number[] = [];
      for (let step = 0; step < 300; step++) {
        const r = rng.next();
        if (r < 0.4) t.set(next, rec(next++));
        else if (r < 0.6) {
          arrays.push(next);
          t.set(next, rec(next, next));
          next++;
        } else if (arrays.length > 0) {
          const a = arrays[Math.floor(rng.next() * arrays.length)] as number;
          const parent = t.get(a);
          if (parent === undefined) continue;
          t.set(next, rec(next++, a));
          t.delete(a);
          t.set(a, parent);
        }
      }
      for (let id = 1; id < next; id++) {
        expect(jobsNamed(t, [id]).map((j) => j.info.jobId), `seed ${seed} id ${id}`).toEqual(walk(t, id));
      }
    }
  });
});
