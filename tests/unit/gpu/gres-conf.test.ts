/**
 * gres.conf reading, the GPU topology wire text and what a node registers
 * (declared through gres.conf, or discovered from the fixture trees).
 */
import { describe, expect, it } from "vitest";
import { gresForNode, parseGresConf } from "../../../src/compat/conf/gres-conf.ts";
import { parseGpuTopology, topologyFromLinks, topologyFromMatrix } from "../../../src/devices/gpu-topology.ts";
import { nodeGpuFacts } from "../../../src/devices/node-gpus.ts";
import { pairQuality } from "../../../src/devices/link-matrix.ts";
import { localGresConf, localTopologyConf } from "../../../src/roles/local-topology.ts";
import { parseTopologyConf } from "../../../src/compat/conf/topology-conf.ts";
import { discoverDevices } from "../../../src/devices/discover.ts";
import { H100, H100_MIG, L40S, MI250X, MI300X, fixtureRoot, nvidiaTexts } from "../devices/fixtures.ts";

const discoverFixture = (layout: string) =>
  discoverDevices(fixtureRoot(layout), layout === MI300X || layout === MI250X ? undefined : nvidiaTexts(layout));

describe("gres.conf", () => {
  it("reads per-GPU lines with File= and Links= for the nodes they name", () => {
    const text = "AutoDetect=off\nNodeName=n[1-2] Name=gpu Type=mi300x File=/dev/dri/renderD128 Links=-1,1\nNodeName=n[1-2] Name=gpu Type=mi300x File=/dev/dri/renderD129 Links=1,-1\nNodeName=n3 Name=gpu File=/dev/nvidia[0-3]\n";
    const parsed = parseGresConf(text);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const n2 = gresForNode(parsed.value, "n2");
    expect(n2.ok && n2.value.gpus.map((g) => [g.file, g.links?.join(",")])).toEqual([
      ["/dev/dri/renderD128", "-1,1"], ["/dev/dri/renderD129", "1,-1"],
    ]);
    const n3 = gresForNode(parsed.value, "n3");
    expect(n3.ok && n3.value.gpus.length).toBe(4);
    expect(n3.ok && n3.value.autoDetect).toBe("off");
  });

  it("refuses malformed lines with the line number", () => {
    const r = parseGresConf("NodeName=n1 Name=gpu File=/dev/nvidia0 Links=-1,x\n");
    const parsed = r.ok ? gresForNode(r.value, "n1") : r;
    expect(parsed.ok ? "" : parsed.error.message).toBe("gres.conf line 1: bad Links=-1,x");
    const count = parseGresConf("NodeName=n1 Name=gpu Count=2 File=/dev/nvidia[0-2]\n");
    const c = count.ok ? gresForNode(count.value, "n1") : count;
    expect(c.ok ? "" : c.error.message).toBe("gres.conf line 1: Count=2 but File= names 3 devices");
  });
});

describe("GPU topology on the wire", () => {
  it("round-trips a discovered matrix through the registration text", () => {
    const inv = discoverFixture(MI250X);
    if (!inv.ok) throw new Error(inv.error.message);
    const text = topologyFromMatrix(inv.value.links);
    const back = parseGpuTopology(text, inv.value.gpus.length);
    expect(back).toBeDefined();
    for (let a = 0; a < inv.value.gpus.length; a++) {
      for (let b = 0; b < inv.value.gpus.length; b++) {
        if (a !== b) expect(pairQuality(back!, a, b)).toBe(pairQuality(inv.value.links, a, b));
      }
    }
  });

  it("rejects text of the wrong shape", () => {
    expect(parseGpuTopology("-1,400;400,-1", 3)).toBeUndefined();
    expect(parseGpuTopology("-1,x;400,-1", 2)).toBeUndefined();
    expect(topologyFromLinks([[-1, 1], undefined])).toBe("");
  });
});

describe("what a node registers", () => {
  it("declared: spur up's gres.conf gives 8 fully connected GPUs with device files", () => {
    const parsed = parseGresConf(localGresConf(["n1", "n2", "n3", "n4"], 8, "mi300x", "xgmi"));
    if (!parsed.ok) throw new Error(parsed.error.message);
    const gres = gresForNode(parsed.value, "n3");
    if (!gres.ok) throw new Error(gres.error.message);
    const facts = nodeGpuFacts({ gpuCount: 8, gpuModel: "mi300x" }, gres.value, undefined);
    expect(facts).toMatchObject({ gpuCount: 8, gpuModel: "mi300x", gres: "gpu:mi300x:8", source: "gres.conf", warnings: [] });
    expect(facts.gpuFiles[7]).toBe("/dev/dri/renderD135");
    const m = parseGpuTopology(facts.gpuTopology, 8)!;
    expect(new Set([1, 2, 3, 4, 5, 6, 7].map((b) => pairQuality(m, 0, b))).size).toBe(1);
  });

  it("discovered: every fixture registers its GPUs, MIG instances as typed units", () => {
    const expected: Record<string, string> = {
      [MI300X]: "gpu:mi300x:8", [H100]: "gpu:h100:8", [L40S]: "gpu:l40s:4", [MI250X]: "gpu:mi250x:8",
      [H100_MIG]: "gpu:3g.40gb:1,gpu:2g.20gb:1,gpu:1g.10gb:1,gpu:h100:7",
    };
    for (const [name, gres] of Object.entries(expected)) {
      const inv = discoverFixture(name);
      if (!inv.ok) throw new Error(`${name}: ${inv.error.message}`);
      const facts = nodeGpuFacts({ gpuCount: 0, gpuModel: "" }, undefined, inv.value);
      expect(facts.gres, name).toBe(gres);
      expect(facts.gpuTopology, name).not.toBe("");
      expect(facts.gpuFiles.every((f) => f.startsWith("/dev/")), name).toBe(true);
      expect(facts.gpuCpus.length, name).toBe(facts.gpuCount);
    }
    const mi300x = discoverFixture(MI300X);
    if (!mi300x.ok) throw new Error(mi300x.error.message);
    expect(nodeGpuFacts({ gpuCount: 8, gpuModel: "" }, undefined, mi300x.value).gpuCpus.slice(3, 5)).toEqual(["0-95,192-287", "96-191,288-383"]);
    const mig = discoverFixture(H100_MIG);
    if (!mig.ok) throw new Error(mig.error.message);
    const one = structuredClone(mig.value);
    for (const g of one.gpus) {
      g.partition = { mode: "mig", memoryMode: "", instances: [{ ...mig.value.gpus[0]!.partition.instances[2]!, index: 0 }] };
    }
    const facts = nodeGpuFacts({ gpuCount: 0, gpuModel: "" }, undefined, one);
    expect(facts).toMatchObject({ gres: "gpu:1g.10gb:8", gpuTopology: "" });
    // The parent GPU's device file and the two capability files of the instance (GPU instance 9, compute instance 0).
    expect(facts.gpuFiles[0]).toBe("/dev/nvidia0,/dev/nvidia-caps/nvidia-cap84,/dev/nvidia-caps/nvidia-cap85");
  });

  it("writes a two-level switch tree for spur up --nodes-per-switch", () => {
    const t = parseTopologyConf(localTopologyConf(5, 2));
    expect(t.ok && t.value.groups.map((g) => `${g.name}:${g.nodes.join(",")}`)).toEqual([
      "s1:n1,n2", "s2:n3,n4", "s3:n5", "top:n1,n2,n3,n4,n5",
    ]);
  });
});
