/**
 * @module tests/unit/lib/id-map
 * IdMap answers as a Map does for any sequence of operations (seeded, replayable: the seed is
 * in the test's name), ids inside and outside its array alike; mapForIds falls back to a plain
 * Map for ids too scattered for an array.
 */
import { describe, expect, it } from "vitest";
import { IdMap, mapForIds } from "../../../src/lib/id-map.ts";
import { createRng } from "../../../src/lib/rng.ts";

/** The same entries, whatever the order (IdMap iterates its array in id order). */
const sorted = (m: Map<number, string>): [number, string][] => [...m].sort((a, b) => a[0] - b[0]);

describe("IdMap", () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`does what a Map does over random operations (seed ${seed})`, () => {
      const rng = createRng(seed);
      const lo = rng.int(0, 1000);
      const hi = lo + rng.int(0, 300);
      const m = new IdMap<string>(lo, hi);
      const ref = new Map<number, string>();
      for (let step = 0; step < 3000; step++) {
        // ids a little outside the range too, and a fractional one now and then
        const id = rng.int(lo - 50, hi + 50) + (rng.int(0, 40) === 0 ? 0.5 : 0);
        const op = rng.int(0, 5);
        if (op <= 2) {
          const v = `v${step}`;
          expect(m.set(id, v)).toBe(m);
          ref.set(id, v);
        } else if (op === 3) {
          expect(m.delete(id)).toBe(ref.delete(id));
        } else if (op === 4) {
          expect(m.getOrInsert(id, `g${step}`)).toBe(ref.getOrInsert(id, `g${step}`));
        } else {
          expect([m.has(id), m.get(id)]).toEqual([ref.has(id), ref.get(id)]);
        }
        expect(m.size).toBe(ref.size);
      }
      expect(sorted(m)).toEqual(sorted(ref));
      expect([...m.keys()].sort((a, b) => a - b)).toEqual([...ref.keys()].sort((a, b) => a - b));
      expect([...m.values()].sort()).toEqual([...ref.values()].sort());
      const seen: [number, string][] = [];
      m.forEach((v, k) => seen.push([k, v]));
      expect(seen.sort((a, b) => a[0] - b[0])).toEqual(sorted(ref));
      m.clear();
      expect([m.size, [...m]]).toEqual([0, []]);
    });
  }

  it("iterates its range in id order, then the ids outside it as they came", () => {
    const m = new IdMap<string>(10, 20);
    for (const id of [15, 30, 11, 5, 20]) m.set(id, `j${id}`);
    expect([...m.keys()]).toEqual([11, 15, 20, 30, 5]);
    expect(m.getOrInsertComputed(12, (id) => `c${id}`)).toBe("c12");
    expect(m.getOrInsertComputed(12, () => "again")).toBe("c12");
  });

  it("mapForIds: an array for ids about as many as the range, a plain Map for ids scattered over millions", () => {
    expect(mapForIds<number>(100, 100_099, 100_000)).toBeInstanceOf(IdMap);
    expect(mapForIds<number>(1, 67_000_000, 3)).not.toBeInstanceOf(IdMap);
    // no pending job: an empty range
    const none = mapForIds<number>(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0);
    expect(none.size).toBe(0);
    none.set(7, 1);
    expect(none.get(7)).toBe(1);
  });
});
