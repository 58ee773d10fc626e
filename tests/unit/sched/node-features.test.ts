/**
 * Node features changed at run time (REST POST node/{name} features, the
 * updateNode command's optional `features`): operators only, no state change
 * needed, kept when the node's agent registers again, checked for bad characters; and a
 * job's --constraint checked against them at submission.
 */
import { describe, expect, it } from "vitest";
import { constraintFeatures } from "../../../src/sched/model/apply-submit.ts";
import { ALICE, ROOT, cluster, spec, submit } from "./builders.ts";

describe("updateNode features", () => {
  it("replaces the features of the named nodes without touching their state", () => {
    const c = cluster();
    const before = c.state.nodes.get("n1")?.info.state;
    const r = c.run({ v: 1, type: "updateNode", at: 5, nodes: ["n1", "n2"], state: "", reason: "", by: ROOT, features: "ib,,fast" });
    expect(r.error).toBe("");
    expect(c.state.nodes.get("n1")?.info.features).toBe("ib,fast");
    expect(c.state.nodes.get("n2")?.info.features).toBe("ib,fast");
    expect(c.state.nodes.get("n1")?.info.state).toBe(before);
    expect(c.state.nodes.get("n3")?.info.features).toBe("");
  });

  it("keeps them over what the agent reports when it registers again", () => {
    const c = cluster();
    c.run({ v: 1, type: "updateNode", at: 5, nodes: ["n1"], state: "", reason: "", by: ROOT, features: "ib" });
    const info = c.state.nodes.get("n1")?.info;
    c.run({ v: 1, type: "registerNode", at: 9, node: { ...(info as NonNullable<typeof info>), features: "" }, runningJobIds: [] });
    expect(c.state.nodes.get("n1")?.info.features).toBe("ib");
  });

  it("refuses a plain user, a bad feature list and a bad state", () => {
    const c = cluster();
    expect(c.run({ v: 1, type: "updateNode", at: 5, nodes: ["n1"], state: "", reason: "", by: ALICE, features: "ib" }).errorCode).toBe("AccessDenied");
    expect(c.run({ v: 1, type: "updateNode", at: 5, nodes: ["n1"], state: "", reason: "", by: ROOT, features: "a b" }).error).toBe("Invalid feature specification");
    expect(c.run({ v: 1, type: "updateNode", at: 5, nodes: ["n1"], state: "BOGUS", reason: "", by: ROOT, features: "ib" }).error).toBe("Invalid node state specified");
    expect(c.state.nodes.get("n1")?.info.features).toBe("");
    expect(c.run({ v: 1, type: "updateNode", at: 5, nodes: ["n1"], state: "", reason: "", by: ROOT }).error).toBe("Invalid node state specified");
  });
});

describe("a job's --constraint names features some node has (Slurm 22.05, oracle seeds 112, 271, 300)", () => {
  it("refuses an unknown feature with Slurm's reason, held or not; a known one is queued", () => {
    const c = cluster();
    c.run({ v: 1, type: "updateNode", at: 5, nodes: ["n2"], state: "", reason: "", by: ROOT, features: "ib,fast" });
    expect(c.run(submit(spec({ constraint: "bogus" }))).error).toBe("Invalid feature specification");
    expect(c.run(submit(spec({ constraint: "bogus", hold: true }))).error).toBe("Invalid feature specification");
    expect(c.run(submit(spec({ constraint: "ib&bogus" }))).error).toBe("Invalid feature specification");
    expect(c.run(submit(spec({ constraint: "ib&fast" }))).error).toBe("");
    expect(c.run(submit(spec({ constraint: "fast,ib" }))).error).toBe("");
  });

  it("reads the feature names of Slurm's constraint expressions", () => {
    expect(constraintFeatures("a&b|c,d")).toEqual(["a", "b", "c", "d"]);
    expect(constraintFeatures("[rack1*2&rack2*4]")).toEqual(["rack1", "rack2"]);
    expect(constraintFeatures("")).toEqual([]);
  });
});
