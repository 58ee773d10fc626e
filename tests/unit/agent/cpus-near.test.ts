/**
 * The agent's choice of core ids near the job's GPUs: per socket as the
 * controller counted, GPU-local cores first, never fewer CPUs than allocated.
 */
import { describe, expect, it } from "vitest";
import { pickCpus, pickCpusNear } from "../../../src/lib/cpu-list.ts";

const range = (lo: number, hi: number): number[] => Array.from({ length: hi - lo }, (_, i) => lo + i);

describe("pickCpusNear", () => {
  it("takes the GPU-local cores before lower ids", () => {
    expect(pickCpusNear(2, 16, new Set(), { socketCpus: [], localCpus: [12, 13, 14, 15] })).toEqual([12, 13]);
    expect(pickCpus(2, 16, new Set())).toEqual([0, 1]); // the plain pick, for contrast
  });

  it("places the counts per socket: 2 on socket 1 of a 2x8 node", () => {
    expect(pickCpusNear(2, 16, new Set(), { socketCpus: [0, 2], localCpus: [] })).toEqual([8, 9]);
    expect(pickCpusNear(4, 16, new Set([0, 1]), { socketCpus: [2, 2], localCpus: [10, 11] })).toEqual([2, 3, 10, 11]);
  });

  it("skips taken cores and prefers local ones within a socket", () => {
    expect(pickCpusNear(3, 16, new Set([12]), { socketCpus: [0, 3], localCpus: [12, 13, 14] })).toEqual([8, 13, 14]);
  });

  it("makes up a stale socket count from local cores, then the lowest free ids", () => {
    const taken = new Set(range(8, 15)); // socket 1 has one free core, the controller counted 3
    expect(pickCpusNear(3, 16, taken, { socketCpus: [0, 3], localCpus: [4] })).toEqual([0, 4, 15]);
  });

  it("never returns a taken core nor more than asked", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const taken = new Set(range(0, 16).filter((c) => (c * seed) % 3 === 0));
      const got = pickCpusNear(5, 16, taken, { socketCpus: [2, 3], localCpus: [1, 9] });
      expect(got.every((c) => !taken.has(c)), `seed ${seed}`).toBe(true);
      expect(got.length).toBe(Math.min(5, 16 - taken.size));
    }
  });
});
