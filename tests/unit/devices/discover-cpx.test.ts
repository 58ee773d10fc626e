/**
 * AMD compute partitions: an MI300X in CPX mode is 8 GPUs in KFD. Discovery of
 * the two-package CPX fixture gives 16 typed GPUs (mi300x_cpx), partitions of one
 * package linked closer than across packages, and a valid CDI spec.
 */
import { describe, expect, it } from "vitest";
import { discoverDevices } from "../../../src/devices/discover.ts";
import { nodeGpuFacts } from "../../../src/devices/node-gpus.ts";
import { amdGresType } from "../../../src/devices/discover-amd.ts";
import { pairQuality } from "../../../src/devices/link-matrix.ts";
import { buildCdiSpec, validateCdiSpec } from "../../../src/devices/cdi.ts";
import { parseGpuTopology } from "../../../src/devices/gpu-topology.ts";
import { pickGpus } from "../../../src/sched/plan/gpu-clique.ts";
import { fixtureRoot } from "./fixtures.ts";

const CPX = "mi300x-cpx-2pkg";

function inventory() {
  const inv = discoverDevices(fixtureRoot(CPX));
  if (!inv.ok) throw new Error(inv.error.message);
  return inv.value;
}

describe("MI300X in CPX mode", () => {
  it("lists 8 partitions per package as GPUs of type mi300x_cpx", () => {
    const inv = inventory();
    expect(inv.warnings).toEqual([]);
    expect(inv.gpus).toHaveLength(16);
    expect(inv.gpus.every((g) => g.gresType === "mi300x_cpx" && g.partition.mode === "CPX" && g.model === "MI300X")).toBe(true);
    // An eighth of the package's memory each; package 0 on NUMA node 0, package 1 on node 1.
    expect(inv.gpus[0]!.memoryMiB).toBe(24574);
    expect(inv.gpus.map((g) => g.numaNode)).toEqual([...Array(8).fill(0), ...Array(8).fill(1)]);
    // One DRM card per package, one render node per partition.
    expect(inv.gpus[1]!.deviceNodes.map((d) => d.path)).toEqual(["/dev/dri/card1", "/dev/dri/renderD129"]);
    expect(new Set(inv.gpus.map((g) => g.minor)).size).toBe(16);
  });

  it("links partitions of one package closer than partitions of two", () => {
    const inv = inventory();
    const facts = nodeGpuFacts({ gpuCount: 16, gpuModel: "" }, undefined, inv);
    expect(facts.gres).toBe("gpu:mi300x_cpx:16");
    const m = parseGpuTopology(facts.gpuTopology, 16)!;
    expect(pairQuality(m, 0, 7)).toBeGreaterThan(pairQuality(m, 0, 8));
    expect(pairQuality(m, 0, 8)).toBeGreaterThan(0);
    // A 4-GPU job with free partitions in both packages stays inside one.
    expect(pickGpus(m, [0, 1, 2, 8, 9, 10, 11, 12], 4)?.indices).toEqual([8, 9, 10, 11]);
  });

  it("describes every partition in a valid CDI spec", () => {
    const spec = buildCdiSpec(inventory(), "amd");
    if (!spec.ok) throw new Error(spec.error.message);
    expect(validateCdiSpec(spec.value)).toEqual([]);
    expect(spec.value.devices.filter((d) => /^\d+$/.test(d.name))).toHaveLength(16);
  });

  it("types a partition after its device, SPX and unpartitioned as the device", () => {
    expect(amdGresType("MI300X", "gfx942", "CPX")).toBe("mi300x_cpx");
    expect(amdGresType("MI300X", "gfx942", "SPX")).toBe("mi300x");
    expect(amdGresType("gfx9ff (1002:74ff)", "gfx9ff", "")).toBe("gfx9ff");
  });
});
