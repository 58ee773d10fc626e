/**
 * @module tests/unit/ops/version-compat
 * The controller's verdict on an agent's protocol version during a rolling upgrade.
 */
import { describe, expect, it } from "vitest";
import { agentProtocolRefusal } from "../../../src/version-compat.ts";

describe("agentProtocolRefusal", () => {
  it("accepts the controller's own protocol", () => {
    expect(agentProtocolRefusal("1", "1", "0.1.0")).toBeUndefined();
  });
  it("tells an operator to upgrade the controller first when the agent is newer", () => {
    expect(agentProtocolRefusal("2", "1", "0.1.0")).toBe(
      "Incompatible protocol version: spurd speaks 2, this spurctld 0.1.0 speaks 1: upgrade spurctld first, then the agents (docs/upgrade.md)",
    );
  });
  it("tells an operator to upgrade the agent when it is older or says nothing", () => {
    expect(agentProtocolRefusal("1", "2", "0.3.0")).toMatch(/spurd speaks 1, .* speaks 2: upgrade this node's spurd/);
    expect(agentProtocolRefusal("", "1", "0.1.0")).toMatch(/spurd speaks \(none\)/);
  });
});
