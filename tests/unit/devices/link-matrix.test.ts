import { describe, expect, it } from "vitest";
import { amdLinkMatrix, linkQuality, nvidiaLink, nvidiaLinkMatrix, pairQuality } from "../../../src/devices/link-matrix.ts";
import { parseKfdTopology, type KfdNodeText } from "../../../src/devices/parse-kfd.ts";
import { readSysfs } from "../../../src/devices/read-sysfs.ts";
import { MI250X, MI300X, fixtureRoot } from "./fixtures.ts";

function amdMatrix(nodes: KfdNodeText[]) {
  const topo = parseKfdTopology(nodes);
  if (!topo.ok) throw new Error(topo.error.message);
  return amdLinkMatrix(topo.value);
}

const link = (from: number, to: number, type: number, weight: number) =>
  `type ${type}\nnode_from ${from}\nnode_to ${to}\nweight ${weight}\nmin_bandwidth 0\nmax_bandwidth 0\nflags 1\n`;
const gpuProps = (bus: number, minor: number) =>
  `simd_count 64\ngfx_target_version 110000\nvendor_id 4098\ndevice_id 29772\nlocation_id ${bus << 8}\ndomain 0\ndrm_render_minor ${minor}\n`;

describe("link matrix from KFD", () => {
  it("MI300X: every pair one direct XGMI link", () => {
    const m = amdMatrix(readSysfs(fixtureRoot(MI300X)).kfdNodes);
    expect(m.size).toBe(8);
    for (let a = 0; a < 8; a++) {
      for (let b = 0; b < 8; b++) {
        if (a === b) expect(m.links[a]![b]).toBeUndefined();
        else expect(m.links[a]![b]).toEqual({ type: "XGMI", weight: 15, hops: 1, bandwidthClass: 4, bandwidthMBps: 64000, code: "XGMI" });
      }
    }
  });

  it("MI250X: in-package quad links beat single links, which beat two-hop peers", () => {
    const m = amdMatrix(readSysfs(fixtureRoot(MI250X)).kfdNodes);
    expect(m.links[0]![1]).toMatchObject({ code: "XGMIx4", hops: 1, bandwidthClass: 5, bandwidthMBps: 200000 });
    expect(m.links[0]![2]).toMatchObject({ code: "XGMI", hops: 1, bandwidthClass: 4, bandwidthMBps: 50000 });
    expect(m.links[0]![3]).toMatchObject({ code: "XGMI-2", hops: 2, weight: 30, bandwidthClass: 3, bandwidthMBps: 0 });
    expect(pairQuality(m, 0, 1)).toBeGreaterThan(pairQuality(m, 0, 2));
    expect(pairQuality(m, 0, 2)).toBeGreaterThan(pairQuality(m, 0, 3));
  });

  it("PCIe-only AMD box: peers meet at their CPU node, or cross the socket link", () => {
    const nodes: KfdNodeText[] = [
      { id: 0, properties: "cpu_cores_count 64\nsimd_count 0\n", ioLinks: [link(0, 1, 1, 32)], memBanks: [] },
      { id: 1, properties: "cpu_cores_count 64\nsimd_count 0\n", ioLinks: [link(1, 0, 1, 32)], memBanks: [] },
      ...[0, 1, 2, 3].map((g) => ({ id: g + 2, properties: gpuProps(0x10 + g, 128 + g), ioLinks: [link(g + 2, g < 2 ? 0 : 1, 2, 20)], memBanks: [] })),
    ];
    const m = amdMatrix(nodes);
    expect(m.links[0]![1]).toEqual({ type: "PCIE", weight: 40, hops: 2, bandwidthClass: 1, bandwidthMBps: 0, code: "PHB" });
    expect(m.links[0]![2]).toEqual({ type: "SYS", weight: 72, hops: 3, bandwidthClass: 0, bandwidthMBps: 0, code: "SYS" });
    expect(pairQuality(m, 2, 3)).toBeGreaterThan(pairQuality(m, 1, 2));
  });
});

describe("link matrix from nvidia-smi codes", () => {
  it("maps every code through one table, X to no link", () => {
    expect(nvidiaLink("NV18")).toEqual({ type: "NVLINK", weight: 15, hops: 1, bandwidthClass: 5, bandwidthMBps: 0, code: "NV18" });
    expect(nvidiaLink("NV1")?.bandwidthClass).toBe(4);
    expect(nvidiaLink("X")).toBeUndefined();
    expect(nvidiaLink("SOC")?.type).toBe("SYS");
    const m = nvidiaLinkMatrix([["X", "PIX"], ["PIX", "X"]]);
    expect(m.links[0]![1]?.code).toBe("PIX");
    expect(m.links[1]![1]).toBeUndefined();
  });

  it("orders link quality NVLink > PIX > PXB > PHB > NODE > SYS", () => {
    const q = ["NV18", "NV4", "NV1", "PIX", "PXB", "PHB", "NODE", "SYS"].map((c) => linkQuality(nvidiaLink(c)));
    expect([...q].sort((a, b) => b - a)).toEqual(q);
    expect(new Set(q.slice(2)).size).toBe(6);
    expect(linkQuality(undefined)).toBe(0);
  });
});
