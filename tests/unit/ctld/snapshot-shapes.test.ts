/**
 * Snapshot rows (ctld/snapshot-shapes.ts): records encoded against their shape's reference
 * decode to the same keys, in the same order, with the same values (undefined ones included),
 * whichever path builds them: a shape's generated object literal, or the general spread for
 * shapes a literal cannot express (keys Object.prototype has, a difference outside the shape). Decoded records never share a value one of them could change; frozen ones are shared.
 */
import { describe, expect, it } from "vitest";
import { type Row, ShapeDecoder, ShapeEncoder, type ShapeTable } from "../../../src/ctld/snapshot-shapes.ts";

type Plain = Record<string, unknown>;

/** Small deterministic generator (mulberry32): a failing seed replays. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ["id", "name", "user", "env", "argv", "time", "note", "flags", "constructor", "toString"];

function record(next: () => number, i: number): Plain {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const out: Plain = {};
  for (const k of KEYS) {
    if (k === "constructor" || k === "toString") {
      if (next() < 0.15) out[k] = pick(["x", 1, null]);
      continue;
    }
    if (next() < 0.1) continue; // optional key absent
    if (k === "id") out[k] = i;
    else if (k === "env") out[k] = next() < 0.7 ? { HOME: "/h", PATH: "/bin" } : { HOME: "/h", X: String(i) };
    else if (k === "argv") out[k] = next() < 0.5 ? [] : ["a", String(i)];
    else if (k === "note") out[k] = next() < 0.3 ? undefined : pick(["", "n"]);
    else out[k] = pick(["a", "b", 0, 1, true, null]);
  }
  out.info = { state: pick(["PENDING", "RUNNING"]), reason: pick(["None", "Priority"]), alloc: next() < 0.5 ? [] : [{ node: "c1" }] };
  return out;
}

/** Through JSON, as a snapshot is stored and read. */
function roundTrip(records: Plain[]): Plain[] {
  const encoder = new ShapeEncoder(["info"]);
  const rows = records.map((r) => encoder.encode(r));
  const stored = JSON.parse(JSON.stringify({ table: encoder.table, rows })) as { table: ShapeTable; rows: Row[] };
  const decoder = new ShapeDecoder(stored.table, ["info"]);
  return stored.rows.map((row) => decoder.decode(row));
}

/** Keys in order and values, undefined ones included (toEqual alone ignores both). */
function expectSame(got: Plain, want: Plain): void {
  expect(Object.keys(got)).toEqual(Object.keys(want));
  for (const k of Object.keys(want)) {
    if (typeof want[k] === "object" && want[k] !== null && !Array.isArray(want[k])) expectSame(got[k] as Plain, want[k] as Plain);
    else expect(got[k]).toStrictEqual(want[k]);
  }
}

describe("snapshot shape rows", () => {
  it("decode to the records encoded, key order and undefined keys included (generated, seeded)", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const next = rng(seed);
      const records = Array.from({ length: 30 }, (_, i) => record(next, i));
      const decoded = roundTrip(records);
      try {
        records.forEach((r, i) => expectSame(decoded[i] as Plain, r));
      } catch (e) {
        throw new Error(`seed ${seed}: ${(e as Error).message}`);
      }
    }
  });

  it("give each record its own objects, but share frozen ones", () => {
    const frozen = Object.freeze({ HOME: "/h" });
    const a = { id: 1, env: { HOME: "/h" }, argv: ["x"], info: { alloc: [] as unknown[] } };
    const encoder = new ShapeEncoder(["info"]);
    const rows = [encoder.encode(a), encoder.encode({ ...a, id: 2 })];
    const decoder = new ShapeDecoder(encoder.table, ["info"]);
    const [one, two] = rows.map((r) => decoder.decode(r)) as [Plain, Plain];
    expect(one.env).not.toBe(two.env);
    expect(one.argv).not.toBe(two.argv);
    expect((one.info as Plain).alloc).not.toBe((two.info as Plain).alloc);
    (one.argv as string[]).push("y");
    expect(two.argv).toEqual(["x"]);
    (encoder.table.refs[0] as Plain).env = frozen;
    const shared = new ShapeDecoder(encoder.table, ["info"]);
    expect(shared.decode(rows[0] as Row).env).toBe(frozen);
    expect(shared.decode(rows[1] as Row).env).toBe(frozen);
  });

  it("a difference outside its shape is kept", () => {
    const encoder = new ShapeEncoder(["info"]);
    const row = encoder.encode({ id: 1, name: "a", info: { s: "x" } });
    row[1] = { name: "b", extra: 5 }; // written by a version whose shape had the key
    const out = new ShapeDecoder(encoder.table, ["info"]).decode(row);
    expect(out).toEqual({ id: 1, name: "b", info: { s: "x" }, extra: 5 });
  });
});
