/**
 * lib/json-pretty writes the bytes of JSON.stringify(value, null, 2): whole, at a depth inside a
 * document, and as the chunks of a document written item by item. Values are generated
 * (awkward strings, numbers JSON has no text for, empty and nested containers, members
 * stringify leaves out, objects with toJSON). SEED=n replays a run; the seed is in the title.
 */
import { describe, expect, it } from "vitest";
import { prettyJson, prettyJsonAt, prettyJsonChunks } from "../../../src/lib/json-pretty.ts";
import { createRng, type Rng } from "../rest/rng.ts";

const SEED = Number(process.env.SEED ?? Date.now() % 100_000);
const STRINGS = ["", "a", "ünïcödé ✓", 'q" b\\s /s \n\t\r\b\f', "\u0000\u001f\u007f", "\ud800 lone", "\udc00", "😀 pair", "x".repeat(70), "1"];
/** Keys: the strings, and one an assignment would take for the prototype were it not defined as a property. */
const KEYS = [...STRINGS, "__proto__"];
const NUMBERS = [0, -0, 1, -1, 2.5, 1e21, 1e-7, Number.NaN, Infinity, -Infinity, 4_294_967_294, Number.MAX_SAFE_INTEGER];

function randomValue(rng: Rng, depth: number): unknown {
  const kind = rng.int(depth > 3 ? 5 : 9);
  if (kind === 0) return rng.pick(STRINGS);
  if (kind === 1) return rng.pick(NUMBERS);
  if (kind === 2) return rng.int(2) === 0;
  if (kind === 3) return null;
  if (kind === 4) return rng.pick([undefined, () => 1, Symbol("s"), new Date(rng.int(2e12)), { toJSON: () => ({ inner: [1, "two"] }) }, new String("boxed")]);
  if (kind <= 6) return Array.from({ length: rng.int(4) }, () => randomValue(rng, depth + 1));
  const out: Record<string, unknown> = {};
  for (let i = rng.int(5); i > 0; i--) Object.defineProperty(out, rng.pick(KEYS), { value: randomValue(rng, depth + 1), enumerable: true, writable: true, configurable: true });
  return out;
}

describe(`json-pretty (SEED=${SEED})`, () => {
  it("prettyJson(v) is JSON.stringify(v, null, 2) for generated values", () => {
    const rng = createRng(SEED);
    for (let i = 0; i < 3000; i++) {
      const v = randomValue(rng, 0);
      const want = JSON.stringify(v, null, 2) ?? "null";
      expect(prettyJson(v), `SEED=${SEED} case ${i}`).toBe(want);
    }
  });

  it("a value written at a depth is its text inside the document", () => {
    const rng = createRng(SEED + 1);
    for (let i = 0; i < 500; i++) {
      const v = { top: [randomValue(rng, 2)] };
      const out: string[] = ['{\n  "top": [\n    '];
      prettyJsonAt(v.top[0], 2, out);
      out.push("\n  ]\n}");
      expect(out.join(""), `SEED=${SEED} case ${i}`).toBe(JSON.stringify(v, null, 2));
    }
  });

  it("a document's chunks join to its text, items mapped on the way, at any chunk size", () => {
    const rng = createRng(SEED + 2);
    for (let i = 0; i < 300; i++) {
      const doc: Record<string, unknown> = {};
      for (let k = rng.int(5); k > 0; k--) doc[rng.pick(["jobs", "meta", "errors", "z", "1"])] = rng.int(3) === 0 ? randomValue(rng, 1) : Array.from({ length: rng.int(6) }, () => randomValue(rng, 2));
      const wrap = (_key: string, x: unknown): unknown => (typeof x === "number" ? { n: x } : x);
      const mapped = Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, Array.isArray(v) ? v.map((x) => wrap(k, x)) : v]));
      const chunks = [...prettyJsonChunks(doc, wrap, 1 + rng.int(40))];
      expect(chunks.join(""), `SEED=${SEED} case ${i}`).toBe(JSON.stringify(mapped, null, 2));
    }
  });
});
