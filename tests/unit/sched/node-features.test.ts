/**
 * Node features changed at run time (REST POST node/{name} features, the
 * updateNode command's optional `features`): operators only, no state change
 * needed, kept when the node's agent registers again, checked for bad characters.
 */
import { describe, expect, it } from "vitest";
import { ALICE, ROOT, cluster } from "./builders.ts";

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
