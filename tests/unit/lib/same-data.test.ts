/**
 * lib/same-data: two values are the same data exactly when nothing a JSON writer could see
 * differs, and never looser than comparing their JSON texts.
 */
import { describe, expect, it } from "vitest";
import { copyPlainData, samePlainData } from "../../../src/lib/same-data.ts";

const base = { id: 7, name: "a", flags: ["X", "Y"], alloc: [{ node: "n1", cpus: 2, gpus: [0, 1] }], held: false, none: null };

describe("samePlainData", () => {
  it("holds for equal data in separate objects", () => {
    expect(samePlainData(base, structuredClone(base))).toBe(true);
    expect(samePlainData([], [])).toBe(true);
    expect(samePlainData(Object.create(null) as object, {})).toBe(true);
    expect(samePlainData(Number.NaN, Number.NaN)).toBe(true);
  });

  it("fails on any changed leaf, at any depth", () => {
    const changes: ((o: typeof base) => void)[] = [
      (o) => void (o.id = 8),
      (o) => void (o.name = "b"),
      (o) => void (o.flags[1] = "Z"),
      (o) => void o.flags.push("Z"),
      (o) => void ((o.alloc[0] as { cpus: number }).cpus = 3),
      (o) => void (o.alloc[0] as { gpus: number[] }).gpus.pop(),
      (o) => void (o.held = true),
      (o) => void ((o as { none: unknown }).none = 0),
      (o) => void ((o as Record<string, unknown>).extra = 1),
      (o) => void delete (o as Partial<typeof base>).name,
    ];
    for (const change of changes) {
      const copy = structuredClone(base);
      change(copy);
      expect(samePlainData(base, copy), String(change)).toBe(false);
      expect(samePlainData(copy, base), String(change)).toBe(false);
    }
  });

  it("is stricter than comparing JSON texts where the texts could hide a difference", () => {
    // Same texts, different data: key order, undefined vs missing, -0, an array vs an object with index keys.
    expect(samePlainData({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(samePlainData({ a: 1, u: undefined }, { a: 1 })).toBe(false);
    expect(samePlainData({ z: -0 }, { z: 0 })).toBe(false);
    expect(samePlainData([1], { 0: 1 })).toBe(false);
    expect(samePlainData({ 0: 1 }, [1])).toBe(false);
  });

  it("takes anything but plain objects and arrays as the same only when it is the very same object", () => {
    const d = new Date(0);
    expect(samePlainData(d, new Date(0))).toBe(false);
    expect(samePlainData({ d }, { d })).toBe(true);
    expect(samePlainData(new Map(), new Map())).toBe(false);
  });

  it("copies plain data deeply: the copy is the same data, and a change to the original in place leaves it behind", () => {
    const original = structuredClone({ ...base, u: undefined });
    const copy = copyPlainData(original);
    expect(samePlainData(copy, original)).toBe(true);
    expect(Object.keys(copy)).toEqual(Object.keys(original));
    (original.alloc[0] as { gpus: number[] }).gpus.push(2);
    original.flags[0] = "W";
    expect(samePlainData(copy, original)).toBe(false);
    expect(copy.flags).toEqual(["X", "Y"]);
    expect(copy.alloc[0]?.gpus).toEqual([0, 1]);
    const d = new Date(0);
    expect(copyPlainData({ d }).d).toBe(d);
  });
});
