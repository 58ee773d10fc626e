import { describe, expect, it } from "vitest";
import { discoverDevices, inventoryFromSnapshot } from "../../../src/devices/discover.ts";
import { gpuUnits, type DeviceInventory } from "../../../src/devices/inventory.ts";
import { readSysfs } from "../../../src/devices/read-sysfs.ts";
import { runNvidiaSmi, type CommandRunner } from "../../../src/devices/run-nvidia-smi.ts";
import { FIXTURES, H100, H100_MIG, L40S, MI250X, MI300X, fixtureRoot, fixtureText, nvidiaTexts } from "./fixtures.ts";

function inventory(layout: string, nvidia = false): DeviceInventory {
  const inv = discoverDevices(fixtureRoot(layout), nvidia ? nvidiaTexts(layout) : undefined);
  if (!inv.ok) throw new Error(inv.error.message);
  return inv.value;
}

describe("discover: AMD from sysfs", () => {
  it("8x MI300X: identity, DRM nodes by PCI address (card0 is the BMC), NUMA, memory, partition", () => {
    const inv = inventory(MI300X);
    expect(inv.gpus).toHaveLength(8);
    expect(inv.warnings).toEqual([]);
    expect(inv.gpus[0]).toEqual({
      index: 0, vendor: "amd", model: "MI300X", gresType: "mi300x", arch: "gfx942", pciBusId: "0000:0c:00.0",
      uniqueId: "GPU-51e365f4c7610e51",
      deviceNodes: [{ path: "/dev/dri/card1", major: 226, minor: 1 }, { path: "/dev/dri/renderD128", major: 226, minor: 128 }],
      minor: 128, cardIndex: 1, numaNode: 0, cpuAffinity: "0-95,192-287", memoryMiB: 196592,
      hiveId: inv.gpus[7]!.hiveId, partition: { mode: "SPX", memoryMode: "NPS1", instances: [] },
    });
    expect(inv.gpus.map((g) => g.numaNode)).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    expect(new Set(inv.gpus.map((g) => g.uniqueId)).size).toBe(8);
    expect(inv.sharedDeviceNodes).toEqual({ amd: [{ path: "/dev/kfd", major: 235, minor: 0 }], nvidia: [] });
    expect(inv.links.size).toBe(8);
  });

  it("MI250X: eight GCDs, one hive, no partition mode files", () => {
    const inv = inventory(MI250X);
    expect(inv.gpus.map((g) => [g.model, g.arch, g.memoryMiB])).toEqual(Array(8).fill(["MI250X", "gfx90a", 65520]));
    expect(new Set(inv.gpus.map((g) => g.hiveId)).size).toBe(1);
    expect(inv.gpus[5]!.partition).toEqual({ mode: "none", memoryMode: "", instances: [] });
  });

  it("falls back to the KFD CPU link for NUMA and warns about a missing DRM card", () => {
    const snapshot = readSysfs(fixtureRoot(MI300X));
    snapshot.drm = snapshot.drm.filter((d) => d.name !== "card8");
    snapshot.pciDisplay = [];
    const inv = discoverDevices(FIXTURES + "does-not-exist");
    expect(inv.ok && inv.value.gpus).toEqual([]);
    const r = inventoryFromSnapshot(snapshot);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.gpus[7]).toMatchObject({ numaNode: 1, cardIndex: -1, cpuAffinity: "", deviceNodes: [{ path: "/dev/dri/renderD135" }] });
    expect(r.value.warnings).toEqual(["GPU 7 (0000:df:00.0): no DRM card in /sys/class/drm"]);
  });
});

describe("discover: NVIDIA from nvidia-smi output", () => {
  it("8x H100 on NVSwitch: device files, affinity from topo -m, shared nodes with the UVM major", () => {
    const inv = inventory(H100, true);
    expect(inv.gpus).toHaveLength(8);
    expect(inv.gpus[4]).toMatchObject({
      index: 4, vendor: "nvidia", model: "H100 80GB HBM3", gresType: "h100", arch: "Hopper", pciBusId: "0000:9a:00.0",
      deviceNodes: [{ path: "/dev/nvidia4", major: 195, minor: 4 }], minor: 4, numaNode: 1, cpuAffinity: "56-111,168-223", memoryMiB: 81559,
    });
    expect(inv.links.links[0]![7]?.code).toBe("NV18");
    expect(inv.sharedDeviceNodes.nvidia).toEqual([
      { path: "/dev/nvidiactl", major: 195, minor: 255 },
      { path: "/dev/nvidia-uvm", major: 508, minor: 0 },
      { path: "/dev/nvidia-uvm-tools", major: 508, minor: 1 },
    ]);
    expect(inv.warnings).toEqual([]);
  });

  it("MIG: GPU 0's instances become schedulable units with UUIDs, profiles and capability files", () => {
    const inv = inventory(H100_MIG, true);
    const gpu0 = inv.gpus[0]!;
    expect(gpu0.partition.mode).toBe("mig");
    expect(gpu0.partition.instances[0]).toMatchObject({
      index: 0, profile: "3g.40gb", gpuInstanceId: 2, computeInstanceId: 0, memoryMiB: 40448, multiprocessors: 60,
      deviceNodes: [{ path: "/dev/nvidia-caps/nvidia-cap21", major: 234, minor: 21 }, { path: "/dev/nvidia-caps/nvidia-cap22", major: 234, minor: 22 }],
    });
    expect(gpu0.partition.instances[2]!.uuid).toMatch(/^MIG-/);
    const units = gpuUnits(inv);
    expect(units.map((u) => [u.name, u.type])).toEqual([
      ["0:0", "3g.40gb"], ["0:1", "2g.20gb"], ["0:2", "1g.10gb"],
      ...[1, 2, 3, 4, 5, 6, 7].map((i) => [String(i), "h100"]),
    ]);
  });

  it("MIG without -L or mig-minors still lists instances, with warnings", () => {
    const snapshot = readSysfs(fixtureRoot(H100_MIG));
    delete snapshot.migMinors;
    const r = inventoryFromSnapshot(snapshot, { query: fixtureText(H100_MIG, "nvidia-smi-q.xml") });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.gpus[0]!.partition.instances.map((i) => [i.profile, i.uuid, i.deviceNodes.length])).toEqual([["", "", 0], ["", "", 0], ["", "", 0]]);
    expect(r.value.warnings).toHaveLength(3);
    // Without topo -m the NUMA node still comes from sysfs.
    expect(r.value.gpus[6]!.numaNode).toBe(1);
    expect(r.value.links.links[0]![1]).toBeUndefined();
  });

  it("PCIe box: two GPUs per NUMA node, PIX/PXB within a socket and SYS across", () => {
    const inv = inventory(L40S, true);
    expect(inv.gpus.map((g) => [g.gresType, g.numaNode, g.partition.mode])).toEqual([["l40s", 0, "none"], ["l40s", 0, "none"], ["l40s", 1, "none"], ["l40s", 1, "none"]]);
    expect(inv.links.links[0]![1]?.code).toBe("PIX");
    expect(inv.links.links[2]![3]?.code).toBe("PXB");
    expect(inv.links.links[1]![2]?.type).toBe("SYS");
  });

  it("a topo -m that disagrees with -q -x is ignored with a warning; no nvidia-smi output only warns", () => {
    const texts = { ...nvidiaTexts(L40S), topo: fixtureText(H100, "nvidia-smi-topo.txt") };
    const r = discoverDevices(fixtureRoot(L40S), texts);
    expect(r.ok && r.value.warnings).toEqual(["nvidia-smi topo -m lists 8 GPUs, -q -x lists 4; links ignored"]);
    const none = discoverDevices(fixtureRoot(L40S));
    expect(none.ok && [none.value.gpus.length, none.value.warnings]).toEqual([0, ["4 NVIDIA GPU(s) on the PCI bus but no nvidia-smi output; they are not listed"]]);
    expect(discoverDevices(fixtureRoot(L40S), { query: "<nvidia_smi_log><gpu>" }).ok).toBe(false);
  });
});

describe("runNvidiaSmi with an injected runner", () => {
  const outputs: Record<string, string> = { "-q -x": nvidiaTexts(H100).query, "topo -m": nvidiaTexts(H100).topo!, "-L": nvidiaTexts(H100).list! };

  it("collects the three outputs", async () => {
    const calls: string[] = [];
    const run: CommandRunner = async (argv) => {
      calls.push(argv.join(" "));
      return { exitCode: 0, stdout: outputs[argv.slice(1).join(" ")] ?? "", stderr: "" };
    };
    const r = await runNvidiaSmi(run);
    expect(calls).toEqual(["nvidia-smi -q -x", "nvidia-smi topo -m", "nvidia-smi -L"]);
    expect(r).toEqual({ ok: true, value: nvidiaTexts(H100) });
  });

  it("absent binary is no GPUs; a failing driver is an error; a failing topo is skipped", async () => {
    expect(await runNvidiaSmi(async () => undefined)).toEqual({ ok: true, value: undefined });
    const failing: CommandRunner = async () => ({ exitCode: 9, stdout: "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", stderr: "" });
    expect(await runNvidiaSmi(failing)).toEqual({
      ok: false,
      error: { code: "NvidiaSmiFailed", message: "nvidia-smi -q -x exited with status 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." },
    });
    const noTopo: CommandRunner = async (argv) => (argv[1] === "topo" ? { exitCode: 2, stdout: "", stderr: "x" } : { exitCode: 0, stdout: "q", stderr: "" });
    expect(await runNvidiaSmi(noTopo)).toEqual({ ok: true, value: { query: "q", list: "q" } });
  });
});

describe("discover: mixed vendors", () => {
  it("lists AMD then NVIDIA, keeps vendor indices, and joins the matrices with SYS between vendors", () => {
    const r = inventoryFromSnapshot(readSysfs(fixtureRoot(MI300X)), nvidiaTexts(L40S));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.gpus.map((g) => `${g.vendor}${g.index}`)).toEqual([...[0, 1, 2, 3, 4, 5, 6, 7].map((i) => `amd${i}`), "nvidia0", "nvidia1", "nvidia2", "nvidia3"]);
    expect(r.value.links.size).toBe(12);
    expect(r.value.links.links[0]![1]?.code).toBe("XGMI");
    expect(r.value.links.links[8]![9]?.code).toBe("PIX");
    expect(r.value.links.links[3]![10]?.code).toBe("SYS");
    expect(r.value.links.links[10]![10]).toBeUndefined();
    expect(r.value.warnings).toContain("AMD and NVIDIA GPUs on one node: indices restart per vendor; the link matrix follows the listed order");
  });
});
