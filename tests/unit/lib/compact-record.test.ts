import { describe, expect, it } from "vitest";
import { heapStats } from "bun:jsc";
import { compactCopy } from "../../../src/lib/compact-record.ts";
import { emptyJobInfo } from "../../../src/sched/model/records.ts";

describe("compactCopy", () => {
  it("keeps every key, in order, with the same values, in a new object", () => {
    const o: Record<string, unknown> = { ...emptyJobInfo(), "weird key\"": 1, "0x": undefined, nested: { a: [1] } };
    const c = compactCopy(o);
    expect(c).not.toBe(o);
    expect(Object.keys(c)).toEqual(Object.keys(o));
    for (const k of Object.keys(o)) expect(c[k]).toBe(o[k]);
    expect("0x" in c).toBe(true);
    expect(JSON.stringify(c)).toBe(JSON.stringify(o));
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
  });

  it("copies a record holding __proto__ as a plain key without changing the prototype", () => {
    const o = JSON.parse(`{${Array.from({ length: 10 }, (_, i) => `"k${i}":${i}`).join(",")},"__proto__":{"x":1}}`) as Record<string, unknown>;
    const c = compactCopy(o);
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
    expect(Object.keys(c)).toEqual(Object.keys(o));
    expect(JSON.stringify(c)).toBe(JSON.stringify(o));
  });

  it("takes less heap than the key-by-key object it copies (a job's info, parsed)", () => {
    const text = JSON.stringify({ ...emptyJobInfo(), tresPerTask: "x", licenses: "y", assocId: 1, qosId: 2 });
    const n = 20000;
    const measure = (make: () => object): number => {
      Bun.gc(true);
      const before = heapStats().heapSize;
      const keep = Array.from({ length: n }, make);
      Bun.gc(true);
      const per = (heapStats().heapSize - before) / n;
      expect(keep.length).toBe(n);
      return per;
    };
    const parsed = measure(() => JSON.parse(text) as object);
    const compact = measure(() => compactCopy(JSON.parse(text) as object));
    expect(compact).toBeLessThan(parsed * 0.85);
  });
});
