import { describe, expect, it } from "vitest";
import {
  amdGpuUuid, amdModelName, gfxTargetName, kfdPciBusId, parseKfdIoLink, parseKfdNode, parseKfdProperties, parseKfdTopology,
} from "../../../src/devices/parse-kfd.ts";
import { readSysfs } from "../../../src/devices/read-sysfs.ts";
import { MI250X, MI300X, fixtureRoot, fixtureText } from "./fixtures.ts";

const NODES = "sys/class/kfd/kfd/topology/nodes";

describe("KFD properties", () => {
  it("reads name-value lines and keeps 64-bit ids exact as strings", () => {
    const props = parseKfdProperties(fixtureText(MI300X, `${NODES}/2/properties`));
    expect(props.get("gfx_target_version")).toBe("90402");
    expect(props.get("unique_id")).toBe("5900672038776933969");
    expect(Number(props.get("unique_id")) > Number.MAX_SAFE_INTEGER).toBe(true);
    expect(parseKfdProperties("a 1\n\n  b   two words \nbroken\n")).toEqual(new Map([["a", "1"], ["b", "two words"]]));
  });

  it("decodes location_id into a PCI address and gfx_target_version into a target name", () => {
    expect(kfdPciBusId(0, 0x0c00)).toBe("0000:0c:00.0");
    expect(kfdPciBusId(1, 0x050b)).toBe("0001:05:01.3");
    expect(gfxTargetName(90402)).toBe("gfx942");
    expect(gfxTargetName(90010)).toBe("gfx90a");
    expect(gfxTargetName(110000)).toBe("gfx1100");
    expect(gfxTargetName(0)).toBe("");
  });

  it("formats unique_id as ROCm's GPU UUID", () => {
    expect(amdGpuUuid("5900672038776933969")).toBe("GPU-51e365f4c7610e51");
    expect(amdGpuUuid("255")).toBe("GPU-00000000000000ff");
    expect(amdGpuUuid("0")).toBe("");
  });
});

describe("KFD io_links", () => {
  it("parses an XGMI link and rejects one without its endpoints", () => {
    const link = parseKfdIoLink(fixtureText(MI250X, `${NODES}/2/io_links/1/properties`));
    expect(link).toEqual({ ok: true, value: { type: 11, nodeFrom: 2, nodeTo: 3, weight: 15, minBandwidthMBps: 50000, maxBandwidthMBps: 200000, flags: 3 } });
    const bad = parseKfdIoLink("type 11\nweight 15\n");
    expect(bad.ok).toBe(false);
  });
});

describe("KFD nodes", () => {
  it("tells CPU nodes (simd_count 0) from GPU nodes and reads GPU identity", () => {
    const topo = parseKfdTopology(readSysfs(fixtureRoot(MI300X)).kfdNodes);
    if (!topo.ok) throw new Error(topo.error.message);
    expect(topo.value.map((n) => n.isGpu)).toEqual([false, false, true, true, true, true, true, true, true, true]);
    const gpu = topo.value[2]!;
    expect(gpu).toMatchObject({ id: 2, pciBusId: "0000:0c:00.0", renderMinor: 128, deviceId: 0x74a1, vendorId: 4098, numXcc: 8 });
    // local_mem_size prints 0 on current kernels; the frame-buffer bank holds the size.
    expect(gpu.memoryBytes).toBe(206141652992);
    expect(gpu.hiveId).toBe(topo.value[9]!.hiveId);
    expect(gpu.ioLinks.filter((l) => l.type === 11)).toHaveLength(7);
    expect(amdModelName(gpu)).toBe("MI300X");
  });

  it("names MI250X by device id and SIMD count, unknown parts by target and PCI id", () => {
    const topo = parseKfdTopology(readSysfs(fixtureRoot(MI250X)).kfdNodes);
    if (!topo.ok) throw new Error(topo.error.message);
    expect(amdModelName(topo.value[2]!)).toBe("MI250X");
    expect(amdModelName({ ...topo.value[2]!, simdCount: 416 })).toBe("MI250");
    expect(amdModelName({ ...topo.value[2]!, deviceId: 0x74ff, gfxTargetVersion: 90402 })).toBe("gfx942 (1002:74ff)");
  });

  it("rejects a GPU node without identity fields and duplicate node ids", () => {
    const missing = parseKfdNode({ id: 4, properties: "simd_count 64\ngfx_target_version 90402\n", ioLinks: [], memBanks: [] });
    expect(missing).toEqual({ ok: false, error: { code: "BadKfdTopology", message: "KFD node 4: GPU properties lack location_id" } });
    const cpu = { id: 0, properties: "cpu_cores_count 8\nsimd_count 0\n", ioLinks: [], memBanks: [] };
    expect(parseKfdTopology([cpu, cpu]).ok).toBe(false);
    // A gpu_id of 0 marks a CPU node even if a property file says otherwise.
    const gpuIdZero = parseKfdNode({ ...cpu, properties: "simd_count 64\n", gpuId: "0\n" });
    expect(gpuIdZero.ok && gpuIdZero.value.isGpu).toBe(false);
  });
});
