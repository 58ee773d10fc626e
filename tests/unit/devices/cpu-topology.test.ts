/**
 * CPU numbering: gres.conf Cores= are core ids, so with SMT a core is two logical
 * CPUs; the OS numbers the second thread either far away ({k, k+ncores}) or next
 * door ({2k, 2k+1}); both map to the same logical CPUs and sockets.
 */
import { describe, expect, it } from "vitest";
import {
  coresToLogicalCpus, declaredTopology, hostCpuTopology, logicalToOsCpus, nodeCpuTopology, osToLogicalCpus, topologyFromOs, type OsCpu,
} from "../../../src/devices/cpu-topology.ts";
import { nodeGpuFacts } from "../../../src/devices/node-gpus.ts";
import { gpuSocketsOf } from "../../../src/compat/gpu-locality.ts";
import { parseGresConf, gresForNode } from "../../../src/compat/conf/gres-conf.ts";

/** OS records of 2 sockets x 4 cores x 2 threads in either numbering (core ids sparse, as on real hosts). */
function osCpus(numbering: "spread" | "adjacent"): OsCpu[] {
  const out: OsCpu[] = [];
  for (let k = 0; k < 8; k++) {
    for (let t = 0; t < 2; t++) {
      out.push({ cpu: numbering === "spread" ? k + 8 * t : 2 * k + t, packageId: Math.floor(k / 4), coreId: (k % 4) * 2 });
    }
  }
  return out;
}

describe("CPU topology", () => {
  it("declared topologies give each core its threads in either numbering", () => {
    expect(declaredTopology(2, 4, 2, "spread").coreCpus[5]).toEqual([5, 13]);
    expect(declaredTopology(2, 4, 2, "adjacent").coreCpus[5]).toEqual([10, 11]);
  });

  it("reads the OS records into sockets x cores x threads in both numberings", () => {
    for (const numbering of ["spread", "adjacent"] as const) {
      const topo = topologyFromOs(osCpus(numbering))!;
      expect(topo, numbering).toMatchObject({ sockets: 2, coresPerSocket: 4, threadsPerCore: 2 });
      expect(topo.coreCpus, numbering).toEqual(declaredTopology(2, 4, 2, numbering).coreCpus);
    }
    // Uneven packages are not a grid.
    expect(topologyFromOs([{ cpu: 0, packageId: 0, coreId: 0 }, { cpu: 1, packageId: 1, coreId: 0 }, { cpu: 2, packageId: 1, coreId: 1 }])).toBeUndefined();
  });

  it("Cores= core ids are logical CPUs k*T..k*T+T-1, whatever the OS numbering", () => {
    const topo = declaredTopology(2, 4, 2, "spread");
    expect(coresToLogicalCpus([4, 5, 6, 7], topo)).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
    expect(coresToLogicalCpus([0, 99], topo)).toEqual([0, 1]);
    expect(logicalToOsCpus([8, 9], topo)).toEqual([4, 12]);
    expect(logicalToOsCpus([8, 9], declaredTopology(2, 4, 2, "adjacent"))).toEqual([8, 9]);
  });

  it("OS CPU lists map to the same logical CPUs in both numberings", () => {
    // Socket 1's CPUs: 4-7,12-15 (spread) or 8-15 (adjacent): logical 8-15 either way.
    expect(osToLogicalCpus([4, 5, 6, 7, 12, 13, 14, 15], topologyFromOs(osCpus("spread"))!)).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
    expect(osToLogicalCpus([8, 9, 10, 11, 12, 13, 14, 15], topologyFromOs(osCpus("adjacent"))!)).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
  });

  it("uses the host's topology only when it has the node's configured shape", () => {
    const shape = { sockets: 2, coresPerSocket: 4, threadsPerCore: 2 };
    expect(nodeCpuTopology(shape, osCpus("adjacent")).coreCpus[1]).toEqual([2, 3]);
    expect(nodeCpuTopology({ ...shape, coresPerSocket: 8 }, osCpus("adjacent")).coreCpus[1]).toEqual([1, 17]);
    // The agent binds only through a host topology of the node's shape: logical 8,9 (core 4) are OS 4,12 or 8,9.
    expect(logicalToOsCpus([8, 9], hostCpuTopology(shape, osCpus("spread"))!)).toEqual([4, 12]);
    expect(logicalToOsCpus([8, 9], hostCpuTopology(shape, osCpus("adjacent"))!)).toEqual([8, 9]);
    expect(hostCpuTopology({ ...shape, threadsPerCore: 1 }, osCpus("spread"))).toBeUndefined();
  });
});

describe("gres.conf Cores= with SMT", () => {
  const conf = "NodeName=n1 Name=gpu Type=mi300x File=/dev/dri/renderD128 Cores=0-3\nNodeName=n1 Name=gpu Type=mi300x File=/dev/dri/renderD129 Cores=4-7\n";

  it("puts the second GPU on socket 1 (it was read as CPU ids 4-7, i.e. socket 0)", () => {
    const parsed = parseGresConf(conf);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const gres = gresForNode(parsed.value, "n1");
    if (!gres.ok) throw new Error(gres.error.message);
    for (const numbering of ["spread", "adjacent"] as const) {
      const facts = nodeGpuFacts({ gpuCount: 2, gpuModel: "mi300x" }, gres.value, undefined, declaredTopology(2, 4, 2, numbering));
      expect(facts.gpuCpus, numbering).toEqual(["0-7", "8-15"]);
      expect(gpuSocketsOf(facts.gpuCpus, 2, 16, 2), numbering).toEqual([0, 1]);
    }
  });

  it("maps discovered OS CPU affinity to logical CPUs", async () => {
    const { discoverDevices } = await import("../../../src/devices/discover.ts");
    const { MI300X, fixtureRoot } = await import("./fixtures.ts");
    const inv = discoverDevices(fixtureRoot(MI300X));
    if (!inv.ok) throw new Error(inv.error.message);
    // The fixture host: 2 sockets x 96 cores x 2 threads, second threads at +192 (GPU 3: "0-95,192-287").
    const facts = nodeGpuFacts({ gpuCount: 8, gpuModel: "" }, undefined, inv.value, declaredTopology(2, 96, 2, "spread"));
    expect(facts.gpuCpus.slice(3, 5)).toEqual(["0-191", "192-383"]);
    expect(gpuSocketsOf(facts.gpuCpus, 8, 384, 2)).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
  });
});
