/**
 * Steps inside an allocation on named nodes (ctld/service-step.ts stepLayout): `srun -w` takes
 * those of the job's nodes (Open MPI's `mpirun --host n3,n4` and MPICH's `-hosts` arrive as
 * `srun --nodelist=...`), `-x` leaves nodes out, a node outside the job is refused; ranks are
 * still dealt in the job's node order.
 */
import { describe, expect, it } from "vitest";
import { stepLayout } from "../../../src/ctld/service-step.ts";
import type { JobRecord } from "../../../src/sched/model/types.ts";
import { spec } from "../sched/builders.ts";

const job = {
  spec: spec({ ntasks: 8 }),
  info: { alloc: ["n1", "n2", "n3", "n4"].map((node) => ({ node, cpus: 2, memMib: 100, gpuIndices: [], tasks: 2 })), steps: [], numTasks: 8 },
} as unknown as JobRecord;

const nodesOf = (r: ReturnType<typeof stepLayout>) => (typeof r === "string" ? r : r.map((a) => `${a.node}:${a.tasks}`));

describe("step node lists", () => {
  it("-w picks the named nodes, in the job's node order", () => {
    expect(nodesOf(stepLayout(job, spec({ nodesMin: 2, nodesMax: 2, ntasks: 2, nodelist: "n4,n3" })))).toEqual(["n3:1", "n4:1"]);
    expect(nodesOf(stepLayout(job, spec({ nodesMin: 1, ntasks: 1, nodelist: "n3" })))).toEqual(["n3:1"]);
    // more nodes than named: the named ones and the first others
    expect(nodesOf(stepLayout(job, spec({ nodesMin: 2, nodesMax: 2, ntasks: 2, nodelist: "n4" })))).toEqual(["n1:1", "n4:1"]);
  });

  it("-x leaves nodes out; a node outside the job, or named and excluded, is refused", () => {
    expect(nodesOf(stepLayout(job, spec({ nodesMin: 1, nodesMax: 1, ntasks: 1, exclude: "n1" })))).toEqual(["n2:1"]);
    expect(stepLayout(job, spec({ ntasks: 1, nodelist: "n9" }))).toBe("Requested node configuration is not available");
    expect(stepLayout(job, spec({ ntasks: 1, nodelist: "n2", exclude: "n2" }))).toBe("Requested node configuration is not available");
  });

  it("without -w or -x nothing changes: the first nodes", () => {
    expect(nodesOf(stepLayout(job, spec({ nodesMin: 2, nodesMax: 2, ntasks: 2 })))).toEqual(["n1:1", "n2:1"]);
  });
});
