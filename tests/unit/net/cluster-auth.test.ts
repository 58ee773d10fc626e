/**
 * @module tests/unit/net/cluster-auth
 * Agent credentials signed with the cluster secret: they verify with the same secret, for
 * the same node and RPC path, within the clock-skew bound; anything else is refused with
 * a reason an operator can act on.
 */
import { describe, expect, it } from "vitest";
import { MAX_SKEW_SEC, signAgentCall, verifyAgentCall } from "../../../src/net/cluster-auth.ts";

const PATH = "/spur.v1.Controller/RegisterNode";
const NOW = 1_800_000_000;

describe("cluster credentials for node agents", () => {
  it("verify with the same secret and name the node", () => {
    const v = verifyAgentCall("s3cret", signAgentCall("s3cret", "n1", PATH, NOW), PATH, NOW + 2);
    expect(v).toEqual({ ok: true, value: "n1" });
  });

  it("are refused with another secret", () => {
    const v = verifyAgentCall("other", signAgentCall("s3cret", "n1", PATH, NOW), PATH, NOW);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.error.message).toBe("cluster credential does not match this controller's secret");
  });

  it("cannot be moved to another RPC or node", () => {
    const cred = signAgentCall("s3cret", "n1", PATH, NOW);
    expect(verifyAgentCall("s3cret", cred, "/spur.v1.Controller/Heartbeat", NOW).ok).toBe(false);
    expect(verifyAgentCall("s3cret", cred.replace(":n1:", ":n2:"), PATH, NOW).ok).toBe(false);
    expect(verifyAgentCall("s3cret", cred.replace(`:${NOW}:`, `:${NOW + 1}:`), PATH, NOW).ok).toBe(false);
  });

  it("expire beyond the clock-skew bound, either way", () => {
    const cred = signAgentCall("s3cret", "n1", PATH, NOW);
    expect(verifyAgentCall("s3cret", cred, PATH, NOW + MAX_SKEW_SEC).ok).toBe(true);
    const late = verifyAgentCall("s3cret", cred, PATH, NOW + MAX_SKEW_SEC + 1);
    expect(late.ok).toBe(false);
    if (!late.ok) expect(late.error.message).toContain("s off this controller's clock");
    expect(verifyAgentCall("s3cret", cred, PATH, NOW - MAX_SKEW_SEC - 1).ok).toBe(false);
  });

  it("refuses malformed headers without throwing", () => {
    for (const bad of ["", "v1", "v2:n1:1:ab", "v1:n1:x:ab", `v1:n 1:${NOW}:${"a".repeat(64)}`, `v1:n1:${NOW}:${"z".repeat(64)}`, `v1:n1:${NOW}:${"a".repeat(63)}`, "v1:::"]) {
      const v = verifyAgentCall("s3cret", bad, PATH, NOW);
      expect(v.ok).toBe(false);
      if (!v.ok) expect(v.error.code).toBe("malformed");
    }
  });
});
