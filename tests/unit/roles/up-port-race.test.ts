/**
 * `spur up` starts a new cluster again on freshly drawn ports when a drawn port was taken
 * between the probe and a daemon's bind (roles/local-cluster.ts portRaceRetry; seen in CI as
 * "Failed to start server. Is port 11461 in use?" under parallel e2e load); never for a
 * restart (its ports are the cluster's), a port the caller named, or any other failure.
 */
import { describe, expect, it } from "vitest";
import { portRaceRetry } from "../../../src/roles/local-cluster.ts";

const taken = new Error("spurctld exited while the cluster was starting: Failed to start server. Is port 11461 in use?");

describe("portRaceRetry", () => {
  it("retries a new cluster whose drawn port was taken, up to 3 attempts", () => {
    expect(portRaceRetry(taken, { wroteConf: true, fixedPort: false, attempt: 1 })).toBe(true);
    expect(portRaceRetry(new Error("listen EADDRINUSE: address already in use"), { wroteConf: true, fixedPort: false, attempt: 2 })).toBe(true);
    expect(portRaceRetry(taken, { wroteConf: true, fixedPort: false, attempt: 3 })).toBe(false);
  });

  it("never for a restart, a named port, or another failure", () => {
    expect(portRaceRetry(taken, { wroteConf: false, fixedPort: false, attempt: 1 })).toBe(false);
    expect(portRaceRetry(taken, { wroteConf: true, fixedPort: true, attempt: 1 })).toBe(false);
    expect(portRaceRetry(new Error("the cluster did not come up within 60 s"), { wroteConf: true, fixedPort: false, attempt: 1 })).toBe(false);
  });
});
