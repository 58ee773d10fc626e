import { describe, expect, it } from "vitest";
import { bestGpuSet } from "../../../src/devices/best-gpu-set.ts";
import { emptyMatrix, type GpuLink, type LinkMatrix } from "../../../src/devices/inventory.ts";
import { nvidiaLink, nvidiaLinkMatrix, pairQuality } from "../../../src/devices/link-matrix.ts";
import { discoverDevices } from "../../../src/devices/discover.ts";
import { createRng, type Rng } from "../../../src/lib/rng.ts";
import { L40S, MI250X, MI300X, fixtureRoot } from "./fixtures.ts";

function matrixOf(layout: string): LinkMatrix {
  const inv = discoverDevices(fixtureRoot(layout));
  if (!inv.ok) throw new Error(inv.error.message);
  return inv.value.links;
}

/** Independent reference: every combination, best (min, total), ties to the lexicographically lowest. */
function bruteForce(m: LinkMatrix, free: number[], count: number): { indices: number[]; min: number; total: number } | undefined {
  const sorted = [...new Set(free)].sort((a, b) => a - b);
  if (count > sorted.length) return undefined;
  let best: { indices: number[]; min: number; total: number } | undefined;
  const combo = (start: number, picked: number[]): void => {
    if (picked.length === count) {
      let min = count < 2 ? 0 : Infinity;
      let total = 0;
      for (let i = 0; i < picked.length; i++) {
        for (let j = i + 1; j < picked.length; j++) {
          const q = pairQuality(m, picked[i]!, picked[j]!);
          min = Math.min(min, q);
          total += q;
        }
      }
      if (best === undefined || min > best.min || (min === best.min && total > best.total)) best = { indices: [...picked], min, total };
      return;
    }
    for (let i = start; i < sorted.length; i++) combo(i + 1, [...picked, sorted[i]!]);
  };
  combo(0, []);
  return best;
}

const CODES = ["NV18", "NV12", "NV4", "NV2", "NV1", "PIX", "PXB", "PHB", "NODE", "SYS"];

function randomMatrix(rng: Rng, n: number): LinkMatrix {
  const m = emptyMatrix(n);
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const ab = nvidiaLink(rng.pick(CODES)) as GpuLink;
      // Mostly symmetric like real topologies; sometimes the directions disagree.
      const ba = rng.next() < 0.15 ? (nvidiaLink(rng.pick(CODES)) as GpuLink) : ab;
      m.links[a]![b] = ab;
      m.links[b]![a] = ba;
    }
  }
  return m;
}

describe("bestGpuSet on fixture topologies", () => {
  it("MI250X: two GPUs go to one package, four spread over same-side GCDs with only direct links", () => {
    const m = matrixOf(MI250X);
    expect(bestGpuSet(m, [0, 1, 2, 3, 4, 5, 6, 7], 2)?.indices).toEqual([0, 1]);
    expect(bestGpuSet(m, [1, 2, 3, 4, 5, 6, 7], 2)?.indices).toEqual([2, 3]);
    expect(bestGpuSet(m, [0, 1, 2, 3, 4, 5, 6, 7], 4)?.indices).toEqual([0, 2, 4, 6]);
    expect(bestGpuSet(m, [0, 3, 5, 6], 2)?.indices).toEqual([0, 6]);
  });

  it("MI300X: all pairs equal, so the lowest free indices win", () => {
    const m = matrixOf(MI300X);
    expect(bestGpuSet(m, [7, 5, 3, 1, 2], 3)).toEqual({ indices: [1, 2, 3], minQuality: 484, totalQuality: 1452, exact: true });
  });

  it("PCIe box: pairs stay on one socket; a third GPU must cross", () => {
    const m = matrixOf(L40S);
    expect(m.size).toBe(0); // sysfs alone holds no NVIDIA topology
    const pcie = nvidiaLinkMatrix([["X", "PIX", "SYS", "SYS"], ["PIX", "X", "SYS", "SYS"], ["SYS", "SYS", "X", "PXB"], ["SYS", "SYS", "PXB", "X"]]);
    expect(bestGpuSet(pcie, [0, 1, 2, 3], 2)?.indices).toEqual([0, 1]);
    expect(bestGpuSet(pcie, [1, 2, 3], 2)?.indices).toEqual([2, 3]);
    expect(bestGpuSet(pcie, [0, 1, 2, 3], 3)?.indices).toEqual([0, 1, 2]);
  });

  it("handles edge requests", () => {
    const m = matrixOf(MI300X);
    expect(bestGpuSet(m, [1, 2], 3)).toBeUndefined();
    expect(bestGpuSet(m, [4, 2], 1)).toEqual({ indices: [2], minQuality: 0, totalQuality: 0, exact: true });
    expect(bestGpuSet(m, [4, 2], 0)?.indices).toEqual([]);
    expect(bestGpuSet(m, [2, 2, 99, -1, 4], 2)?.indices).toEqual([2, 4]);
    expect(bestGpuSet(m, [0, 1], 1.5)).toBeUndefined();
  });
});

describe("bestGpuSet equals brute force (seeded property test)", () => {
  it("on 600 random topologies of up to 8 GPUs", () => {
    const seed = Number(process.env["SEED"] ?? 20240611);
    const rng = createRng(seed);
    for (let run = 0; run < 600; run++) {
      const n = rng.int(1, 8);
      const m = randomMatrix(rng, n);
      const free = Array.from({ length: n }, (_, i) => i).filter(() => rng.next() < 0.8);
      const count = rng.int(0, free.length + 1);
      const got = bestGpuSet(m, free, count);
      const want = bruteForce(m, free, count);
      const context = `SEED=${seed} run=${run} n=${n} free=${free.join(",")} count=${count}`;
      if (want === undefined) {
        expect(got, context).toBeUndefined();
        continue;
      }
      expect(got, context).toEqual({ indices: want.indices, minQuality: want.min, totalQuality: want.total, exact: true });
    }
  });

  it("falls back to a valid greedy set, flagged inexact, when the step budget runs out", () => {
    const rng = createRng(7);
    const m = randomMatrix(rng, 8);
    const got = bestGpuSet(m, [0, 1, 2, 3, 4, 5, 6, 7], 4, 5);
    const want = bruteForce(m, [0, 1, 2, 3, 4, 5, 6, 7], 4)!;
    expect(got?.exact).toBe(false);
    expect(new Set(got?.indices).size).toBe(4);
    expect(got!.minQuality).toBeLessThanOrEqual(want.min);
  });

  it("stays fast and exact on 64 partitions of a fully connected hive", () => {
    const codes = Array.from({ length: 64 }, (_, a) => Array.from({ length: 64 }, (_, b) => (a === b ? "X" : (a >> 3) === (b >> 3) ? "NV18" : "NV4")));
    const got = bestGpuSet(nvidiaLinkMatrix(codes), Array.from({ length: 64 }, (_, i) => 63 - i), 8);
    expect(got).toMatchObject({ indices: [0, 1, 2, 3, 4, 5, 6, 7], exact: true });
  });
});
