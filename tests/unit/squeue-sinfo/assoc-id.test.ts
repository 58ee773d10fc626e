/**
 * squeue -O AssocId: the association the job is charged to, the number sacct's AssocID shows
 * (oracle 22.05: `squeue -h -O AssocId -j J` printed 2, root's association there, where it used to print 0).
 */
import { describe, expect, it } from "vitest";
import { jobColumn, jobName } from "../../../src/compat/format/squeue-fields-long.ts";
import { cluster, spec, submit } from "../sched/builders.ts";

describe("squeue -O AssocId", () => {
  it("is the job's association id, 0 without one", () => {
    const c = cluster();
    const r = c.run(submit(spec({ name: "x", hold: true }), 1_800_000_000));
    const job = c.state.jobs.get(r.ids[0] as number)?.info;
    if (job === undefined) throw new Error(r.error);
    const column = jobColumn(jobName("associd") as string);
    const row = (j: typeof job) => ({ job: j, now: 1_800_000_000, cluster: "c" }) as Parameters<typeof column.value>[0];
    expect(job.assocId).toBeGreaterThan(0);
    expect(column.value(row(job), 20)).toBe(String(job.assocId));
    expect(column.value(row({ ...job, assocId: undefined }), 20)).toBe("0");
  });
});
