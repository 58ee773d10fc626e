/** The heartbeat interval the controller asks of its agents (service-agent.ts): bounded load at scale, timely at any SlurmdTimeout. */
import { describe, expect, it } from "vitest";
import { heartbeatIntervalMs } from "../../../src/ctld/service-agent.ts";

describe("heartbeatIntervalMs", () => {
  it("is 2 s in a small cluster, and spreads a large one to at most 500 beats a second", () => {
    expect(heartbeatIntervalMs(4, 300)).toBe(2000);
    expect(heartbeatIntervalMs(1000, 300)).toBe(2000);
    expect(heartbeatIntervalMs(10_000, 300)).toBe(20_000);
    expect(heartbeatIntervalMs(100_000, 300)).toBe(100_000); // a third of SlurmdTimeout at most
  });

  it("hears a node at least three times a SlurmdTimeout, and never beats faster than twice a second", () => {
    for (const nodes of [1, 10, 1000, 5000, 20_000, 200_000]) {
      for (const timeout of [1, 4, 20, 30, 300, 3600]) {
        const ms = heartbeatIntervalMs(nodes, timeout);
        expect(ms, `${nodes} nodes, SlurmdTimeout=${timeout}`).toBeLessThanOrEqual(Math.max(500, (timeout * 1000) / 3));
        expect(ms, `${nodes} nodes, SlurmdTimeout=${timeout}`).toBeGreaterThanOrEqual(500);
        // all agents together: no more than 500 a second unless the timeout asks for more
        if ((timeout * 1000) / 3 >= nodes * 2) expect((nodes * 1000) / ms).toBeLessThanOrEqual(500);
      }
    }
    expect(heartbeatIntervalMs(4, 4)).toBe(1333);
    expect(heartbeatIntervalMs(10_000, 0)).toBe(20_000); // SlurmdTimeout=0: nodes are never failed by silence
  });
});
