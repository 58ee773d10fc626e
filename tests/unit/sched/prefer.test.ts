/**
 * --prefer: a soft constraint. Placement tries the preferred features first (with the hard
 * ones) and drops them when no such placement exists now; the names are checked at submission
 * as --constraint's are (oracle 22.05: "Invalid preferred feature specification").
 */
import { describe, expect, it } from "vitest";
import { fitJob, type NodeView } from "../../../src/sched/plan/fit-node.ts";
import type { ResourceRequest } from "../../../src/sched/plan/request.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { ROOT, cluster, spec, submit } from "./builders.ts";
import { req, view } from "./fit-fixtures.ts";



const nodesOf = (alloc: ReturnType<typeof fitJob>): string[] | undefined => alloc?.map((a) => a.node);

describe("fitJob with --prefer", () => {
  const plain = view("n1");
  const fast = view("n2", { features: ["fast"] });
  const fastIb = view("n3", { features: ["fast", "ib"] });

  it("takes a node with the preferred features over an earlier one without", () => {
    expect(nodesOf(fitJob(req(), [plain, fast], "now"))).toEqual(["n1"]);
    expect(nodesOf(fitJob(req({ prefer: ["fast"] }), [plain, fast], "now"))).toEqual(["n2"]);
  });

  it("falls back to the other nodes when the preferred ones are full or absent", () => {
    expect(nodesOf(fitJob(req({ prefer: ["fast"] }), [plain, { ...fast, freeCpus: 0, idle: false }], "now"))).toEqual(["n1"]);
    expect(nodesOf(fitJob(req({ prefer: ["gpu"] }), [plain, fast], "now"))).toEqual(["n1"]);
  });

  it("never relaxes the hard constraints, and needs every preferred feature", () => {
    expect(nodesOf(fitJob(req({ features: ["fast"], prefer: ["ib"] }), [plain, fast, fastIb], "now"))).toEqual(["n3"]);
    expect(nodesOf(fitJob(req({ features: ["ib"], prefer: ["gpu"] }), [plain, fast], "now"))).toBeUndefined();
    expect(nodesOf(fitJob(req({ prefer: ["fast", "ib"] }), [plain, fast, fastIb], "now"))).toEqual(["n3"]);
  });

  it("prefers for every node of a multi-node job, or for none", () => {
    const two = req({ nodesMin: 2, nodesMax: 2, ntasks: 2, prefer: ["fast"] });
    expect(nodesOf(fitJob(two, [plain, fast, fastIb], "now"))).toEqual(["n2", "n3"]);
    expect(nodesOf(fitJob(two, [plain, fast, { ...fastIb, usable: false }], "now"))).toEqual(["n1", "n2"]);
  });
});

describe("--prefer in the controller", () => {
  it("refuses names no node has, as Slurm does, and records the preference", () => {
    const c = cluster();
    c.run({ v: 1, type: "updateNode", at: 5, nodes: ["n3"], state: "", reason: "", by: ROOT, features: "fast" });
    expect(c.run(submit(spec({ ntasks: 1, prefer: "bogus" }))).error).toBe("Invalid preferred feature specification");
    expect(c.run(submit(spec({ ntasks: 1, prefer: "fast|bogus" }))).error).toBe("Invalid preferred feature specification");
    const id = c.run(submit(spec({ ntasks: 1, prefer: "fast", partition: "debug" }))).ids[0] as number;
    expect(c.state.jobs.get(id)?.info.prefer).toBe("fast");
    const decisions = schedule(c.state, 20).decisions;
    expect(decisions.find((d) => d.jobId === id)?.alloc.map((a) => a.node)).toEqual(["n3"]);
  });
});
