/**
 * GPU set choice inside a node: best connected first, then the choice that keeps
 * the remaining free GPUs connected, then lowest indices; equal to the exact
 * search of devices/best-gpu-set on link quality (seeded random matrices).
 */
import { describe, expect, it } from "vitest";
import { pickGpus } from "../../../src/sched/plan/gpu-clique.ts";
import { declaredLinks, parseGpuTopology, topologyFromLinks, formatQualityRows } from "../../../src/devices/gpu-topology.ts";
import { bestGpuSet } from "../../../src/devices/best-gpu-set.ts";
import { createRng } from "../../../src/lib/rng.ts";

function links(shape: string, count = 8) {
  const rows = declaredLinks(shape, count);
  if (typeof rows === "string") throw new Error(rows);
  return parseGpuTopology(topologyFromLinks(rows), count)!;
}

describe("pickGpus", () => {
  it("gives a 1-GPU job the lone free GPU, not one of a connected pair", () => {
    expect(pickGpus(links("hives:4"), [0, 1, 4], 1)?.indices).toEqual([4]);
  });

  it("takes a pair from the partly used hive and leaves the whole hive free", () => {
    expect(pickGpus(links("hives:4"), [0, 1, 2, 3, 5, 6], 2)?.indices).toEqual([5, 6]);
  });

  it("keeps Slurm's lowest indices on a fully connected node and without topology", () => {
    expect(pickGpus(links("xgmi"), [1, 3, 4, 6], 2)?.indices).toEqual([1, 3]);
    expect(pickGpus(undefined, [6, 2, 5], 2)?.indices).toEqual([2, 5]);
    expect(pickGpus(links("xgmi"), [1, 2], 3)).toBeUndefined();
  });

  it("finds a set as well connected as the exact search (seeded random matrices)", () => {
    const seed = Number(process.env.SEED ?? 7);
    const rng = createRng(seed);
    for (let round = 0; round < 200; round++) {
      const n = rng.int(2, 10);
      const rows = Array.from({ length: n }, () => Array.from({ length: n }, () => 0));
      for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) rows[a]![b] = rows[b]![a] = rng.pick([29, 159, 259, 484, 584]);
      const m = parseGpuTopology(formatQualityRows(rows), n)!;
      const free = Array.from({ length: n }, (_, i) => i).filter(() => rng.next() < 0.8);
      const count = rng.int(0, free.length);
      const got = pickGpus(m, free, count);
      const exact = bestGpuSet(m, free, count);
      const where = `SEED=${seed} round ${round}`;
      expect(got?.indices.length, where).toBe(count);
      if (count >= 2) {
        expect(got?.minQuality, where).toBe(exact?.minQuality);
        expect(got?.totalQuality, where).toBe(exact?.totalQuality);
      }
    }
  });
});
