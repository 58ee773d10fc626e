/** cgroup.conf switches (agent/cgroup/cgroup-conf.ts): Slurm's defaults, parsing, limits, and how a node says what it enforces. */
import { describe, expect, it } from "vitest";
import {
  cgroupConfPairs, constraintsText, containmentText, memoryLimits, readConstraints, SLURM_DEFAULTS, SPUR_UP_CGROUP_CONF,
} from "../../../src/agent/cgroup/cgroup-conf.ts";

describe("cgroup.conf switches", () => {
  it("constrains nothing by default, as Slurm", () => {
    const c = readConstraints([]);
    expect(c.ok && c.value).toEqual(SLURM_DEFAULTS);
    expect(c.ok && constraintsText(c.value)).toBe("none");
    expect(memoryLimits(SLURM_DEFAULTS, 100)).toEqual({ ramBytes: 0, swapBytes: undefined });
  });

  it("reads cgroup.conf (case-insensitive keys, comments, several pairs a line); spur.conf's pairs come later and win", () => {
    const file = cgroupConfPairs("# site\nCgroupPlugin=autodetect\nConstrainCores=yes ConstrainRAMSpace=YES\nAllowedRAMSpace=50\nconstrainswapspace=yes\nAllowedSwapSpace=10%\n");
    const c = readConstraints([...file, ["constraincores", "no"]]);
    expect(c.ok && c.value).toEqual({ cores: false, ram: true, swap: true, devices: false, allowedRamPercent: 50, allowedSwapPercent: 10 });
    expect(c.ok && memoryLimits(c.value, 1000)).toEqual({ ramBytes: 500 * 1024 * 1024, swapBytes: 100 * 1024 * 1024 });
    expect(c.ok && containmentText("cgroup/v1", c.value)).toBe("cgroup/v1 Constrained=ConstrainRAMSpace(50%),ConstrainSwapSpace(+10%)");
  });

  it("refuses values that are neither yes nor no, and percentages that are not numbers", () => {
    const bad = readConstraints([["constraincores", "maybe"]]);
    expect(!bad.ok && bad.error.message).toBe("cgroup.conf: constraincores=maybe: expected yes or no");
    expect(readConstraints([["allowedramspace", "lots"]]).ok).toBe(false);
  });

  it("spur up's cgroup.conf turns every switch on", () => {
    const c = readConstraints(cgroupConfPairs(SPUR_UP_CGROUP_CONF));
    expect(c.ok && constraintsText(c.value)).toBe("ConstrainCores,ConstrainRAMSpace(100%),ConstrainSwapSpace(+0%),ConstrainDevices");
    expect(containmentText("none (no cgroup filesystem)", SLURM_DEFAULTS)).toBe("none (no cgroup filesystem)");
  });
});
