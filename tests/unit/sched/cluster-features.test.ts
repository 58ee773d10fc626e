/** The kept set of the cluster's features (sched/model/cluster-features.ts) follows every change, as a rebuild would. */
import { describe, expect, it } from "vitest";
import { clusterFeatures } from "../../../src/sched/model/cluster-features.ts";
import { ROOT, cluster, spec, submit } from "./builders.ts";

describe("clusterFeatures", () => {
  it("follows features changed in place, and nodes leaving the cluster", () => {
    const c = cluster();
    expect([...clusterFeatures(c.state)]).toEqual([]);
    const first = clusterFeatures(c.state);
    expect(clusterFeatures(c.state)).toBe(first); // unchanged: the kept set itself
    c.run({ v: 1, type: "updateNode", at: 20, nodes: ["n2"], state: "", reason: "", by: ROOT, features: "ib,fast" });
    expect([...clusterFeatures(c.state)].sort()).toEqual(["fast", "ib"]);
    // what submissions see (the check this set serves)
    expect(c.run(submit(spec({ constraint: "ib" }))).error).toBe("");
    expect(c.run(submit(spec({ constraint: "gpu" }))).error).toContain("Invalid feature specification");
    const n2 = c.state.nodes.get("n2");
    if (n2 === undefined) throw new Error("n2");
    n2.info.features = "fast";
    expect([...clusterFeatures(c.state)]).toEqual(["fast"]);
    c.state.nodes.delete("n2");
    expect([...clusterFeatures(c.state)]).toEqual([]);
  });
});
