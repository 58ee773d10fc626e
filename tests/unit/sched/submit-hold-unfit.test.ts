/**
 * Held submissions skip the node-configuration test (Slurm 22.05, live oracle:
 * `sbatch --hold -c 96` and `--mem=100G` on 4-CPU/4000M nodes are queued JobHeldUser;
 * released, the job pends with reason PartitionConfig and never blocks its partition).
 * `--test-only` always runs the test and does not look up dependencies.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { validateSubmit } from "../../../src/sched/model/apply-submit.ts";
import { ROOT, cluster, spec, submit } from "./builders.ts";

describe("sbatch --hold and the node-configuration test", () => {
  it("a held job no node could hold is queued; released it waits on PartitionConfig and others still start", () => {
    const c = cluster();
    const held = c.run(submit(spec({ cpusPerTask: 96, hold: true })));
    expect(held.error).toBe("");
    const id = held.ids[0] ?? 0;
    expect(c.state.jobs.get(id)?.info).toMatchObject({ state: "PENDING", reason: "JobHeldUser", numCpus: 96, numNodes: 1 });
    expect(c.run({ v: 1, type: "updateJob", at: 11, jobIds: [String(id)], action: "release", fields: {}, by: ROOT }).items[0]?.error ?? "").toBe("");
    const small = c.run(submit(spec({ ntasks: 1 }), 12)).ids[0] ?? 0;
    const r = schedule(c.state, 13);
    expect(r.reasons.get(id)).toBe("PartitionConfig");
    expect(r.decisions.map((d) => d.jobId)).toEqual([small]);
  });

  it("memory beyond every node is accepted when held, refused otherwise", () => {
    const c = cluster();
    expect(c.run(submit(spec({ memPerNodeMib: 102_400, hold: true }))).error).toBe("");
    expect(c.run(submit(spec({ memPerNodeMib: 102_400 }))).error).toBe("Memory specification can not be satisfied\nRequested node configuration is not available");
  });

  it("--test-only runs the test even with --hold and ignores unknown dependencies", () => {
    const c = cluster();
    expect(validateSubmit(c.state, spec({ cpusPerTask: 96, hold: true }), ROOT, { testOnly: true })).toBe(
      "CPU count per node can not be satisfied\nRequested node configuration is not available",
    );
    expect(typeof validateSubmit(c.state, spec({ dependency: "afterok:999999" }), ROOT, { testOnly: true })).toBe("object");
    expect(validateSubmit(c.state, spec({ dependency: "afterok:999999" }), ROOT)).toBe("Job dependency problem");
  });

  it("--test-only checks the reservation as a submission does (oracle: differential tester, --reservation=nope)", () => {
    const c = cluster();
    expect(validateSubmit(c.state, spec({ reservation: "nope" }), ROOT, { testOnly: true })).toBe("Requested reservation is invalid");
    expect(validateSubmit(c.state, spec({ reservation: "nope", cpusPerTask: 96 }), ROOT, { testOnly: true })).toBe("Requested reservation is invalid");
  });

  it("the account a job names is lower-cased (oracle: -A ROOT runs as Account=root)", () => {
    const c = cluster();
    const id = c.run(submit(spec({ account: "ROOT" }))).ids[0] ?? 0;
    expect(c.state.jobs.get(id)?.info.account).toBe("root");
  });
});
