import { describe, expect, it } from "vitest";
import { nvidiaGresType, parseMiB, parseNvidiaSmiList, parseNvidiaSmiXml } from "../../../src/devices/parse-nvidia-smi.ts";
import { isTopoCode, parseNvidiaTopo } from "../../../src/devices/parse-nvidia-topo.ts";
import { parseXml, xmlText } from "../../../src/devices/xml-lite.ts";
import { H100, H100_MIG, L40S, fixtureText } from "./fixtures.ts";

describe("xml-lite", () => {
  it("parses elements, attributes, entities, comments and CDATA; skips the DOCTYPE", () => {
    const doc = parseXml(`<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n<r a="1 &amp; 2"><!-- c --><b>x &lt; y &#65;&#x42;</b><e/><c><![CDATA[<raw>]]></c></r>`);
    if (!doc.ok) throw new Error(doc.error.message);
    expect(doc.value.attributes).toEqual({ a: "1 & 2" });
    expect(xmlText(doc.value, "b")).toBe("x < y AB");
    expect(xmlText(doc.value, "c")).toBe("<raw>");
    expect(xmlText(doc.value, "e")).toBe("");
    // The entity is never expanded: it only exists in the skipped DOCTYPE.
    expect(JSON.stringify(doc.value)).not.toContain("passwd");
  });

  it("rejects broken documents", () => {
    expect(parseXml("<a><b></a>").ok).toBe(false);
    expect(parseXml("<a>").ok).toBe(false);
    expect(parseXml("<a/><b/>").ok).toBe(false);
    expect(parseXml("text").ok).toBe(false);
    expect(parseXml(`<a x=1/>`).ok).toBe(false);
    expect(parseXml("<a>" + "<b>".repeat(100) + "</b>".repeat(100) + "</a>").ok).toBe(false);
  });
});

describe("nvidia-smi -q -x", () => {
  it("reads the eight H100s in document order with bus id, minor, memory and MIG mode", () => {
    const log = parseNvidiaSmiXml(fixtureText(H100, "nvidia-smi-q.xml"));
    if (!log.ok) throw new Error(log.error.message);
    expect(log.value.driverVersion).toBe("550.54.15");
    expect(log.value.gpus).toHaveLength(8);
    expect(log.value.gpus[7]).toMatchObject({
      index: 7, pciBusId: "0000:db:00.0", productName: "NVIDIA H100 80GB HBM3", architecture: "Hopper",
      minorNumber: 7, memoryMiB: 81559, migMode: "Disabled", migDevices: [], moduleId: 6,
    });
    expect(log.value.gpus.every((g) => /^GPU-[0-9a-f-]{36}$/.test(g.uuid))).toBe(true);
  });

  it("reads MIG devices of a MIG-enabled GPU", () => {
    const log = parseNvidiaSmiXml(fixtureText(H100_MIG, "nvidia-smi-q.xml"));
    if (!log.ok) throw new Error(log.error.message);
    const gpu0 = log.value.gpus[0]!;
    expect(gpu0.migMode).toBe("Enabled");
    expect(gpu0.migDevices).toEqual([
      { index: 0, gpuInstanceId: 2, computeInstanceId: 0, memoryMiB: 40448, multiprocessors: 60, uuid: "" },
      { index: 1, gpuInstanceId: 3, computeInstanceId: 0, memoryMiB: 20096, multiprocessors: 32, uuid: "" },
      { index: 2, gpuInstanceId: 9, computeInstanceId: 0, memoryMiB: 9856, multiprocessors: 16, uuid: "" },
    ]);
    expect(log.value.gpus[1]!.migDevices).toEqual([]);
  });

  it("marks non-MIG-capable boards N/A and checks attached_gpus", () => {
    const log = parseNvidiaSmiXml(fixtureText(L40S, "nvidia-smi-q.xml"));
    expect(log.ok && log.value.gpus.map((g) => g.migMode)).toEqual(["N/A", "N/A", "N/A", "N/A"]);
    const short = fixtureText(L40S, "nvidia-smi-q.xml").replace("<attached_gpus>4", "<attached_gpus>5");
    expect(parseNvidiaSmiXml(short)).toMatchObject({ ok: false, error: { code: "BadNvidiaSmi" } });
    expect(parseNvidiaSmiXml("<other/>").ok).toBe(false);
    expect(parseMiB("N/A")).toBe(0);
  });

  it("derives short gres types from product names", () => {
    expect(nvidiaGresType("NVIDIA H100 80GB HBM3")).toBe("h100");
    expect(nvidiaGresType("NVIDIA A100-SXM4-80GB")).toBe("a100");
    expect(nvidiaGresType("NVIDIA L40S")).toBe("l40s");
    expect(nvidiaGresType("NVIDIA RTX A6000")).toBe("rtx_a6000");
    expect(nvidiaGresType("NVIDIA GeForce RTX 4090")).toBe("rtx_4090");
    expect(nvidiaGresType("Tesla V100-SXM2-32GB")).toBe("v100");
  });
});

describe("nvidia-smi -L", () => {
  it("pairs MIG UUIDs and profiles with their parent GPU", () => {
    const list = parseNvidiaSmiList(fixtureText(H100_MIG, "nvidia-smi-L.txt"));
    expect(list).toHaveLength(8);
    expect(list[0]!.migs.map((m) => [m.index, m.profile])).toEqual([[0, "3g.40gb"], [1, "2g.20gb"], [2, "1g.10gb"]]);
    expect(list[0]!.migs.every((m) => m.uuid.startsWith("MIG-"))).toBe(true);
    expect(list[1]!.migs).toEqual([]);
  });
});

describe("nvidia-smi topo -m", () => {
  it("reads the NVSwitch matrix, NIC columns, CPU and NUMA affinity", () => {
    const topo = parseNvidiaTopo(fixtureText(H100, "nvidia-smi-topo.txt"));
    if (!topo.ok) throw new Error(topo.error.message);
    expect(topo.value.gpuCodes).toHaveLength(8);
    expect(topo.value.gpuCodes.every((row, a) => row.every((c, b) => c === (a === b ? "X" : "NV18")))).toBe(true);
    expect(topo.value.nicCodes[0]).toEqual(["PXB", "NODE", "SYS", "SYS"]);
    expect(topo.value.cpuAffinity[4]).toBe("56-111,168-223");
    expect(topo.value.numaAffinity).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
  });

  it("reads a PCIe-only box and survives terminal bold escapes", () => {
    const text = fixtureText(L40S, "nvidia-smi-topo.txt").replace("\tGPU0", "\t\x1b[4mGPU0\x1b[0m");
    const topo = parseNvidiaTopo(text);
    if (!topo.ok) throw new Error(topo.error.message);
    expect(topo.value.gpuCodes).toEqual([["X", "PIX", "SYS", "SYS"], ["PIX", "X", "SYS", "SYS"], ["SYS", "SYS", "X", "PXB"], ["SYS", "SYS", "PXB", "X"]]);
    expect(topo.value.numaAffinity).toEqual([0, 0, 1, 1]);
  });

  it("rejects text that is not a topology matrix", () => {
    expect(parseNvidiaTopo("No devices were found\n").ok).toBe(false);
    expect(parseNvidiaTopo("\tGPU0\tGPU1\nGPU0\t X \tWHAT\nGPU1\tPIX\t X \n").ok).toBe(false);
    expect(parseNvidiaTopo("\tGPU0\tGPU1\nGPU0\t X \tPIX\n").ok).toBe(false);
    expect(isTopoCode("NV4") && isTopoCode("NODE") && !isTopoCode("NV")).toBe(true);
  });
});
