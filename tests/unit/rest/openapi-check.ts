/**
 * @module tests/unit/rest/openapi-check
 * A small JSON Schema checker for the subset spurrestd's OpenAPI document
 * uses ($ref, type, properties, required, items, enum, maxLength, maxItems),
 * written independently of src/net/rest/schema.ts so that it checks the
 * published document, not the code that produced it. Also a seeded generator
 * of values (valid, and mutated) from the same document, for the fuzz suite.
 */
import { createRng, type Rng } from "./rng.ts";

export type Doc = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, Json> } };
type Json = Record<string, unknown>;

export function resolve(doc: Doc, s: Json): Json {
  const ref = s.$ref;
  if (typeof ref !== "string") return s;
  const name = ref.replace("#/components/schemas/", "");
  const target = doc.components.schemas[name];
  if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
  return resolve(doc, target);
}

/** Problems of `v` against schema `s` (empty = conforms). Unknown properties are problems. */
export function check(doc: Doc, s: Json, v: unknown, path = "$", out: string[] = []): string[] {
  const t = resolve(doc, s);
  const bad = (m: string) => out.push(`${path}: ${m}`);
  switch (t.type) {
    case "string":
      if (typeof v !== "string") bad("not a string");
      else if (Array.isArray(t.enum) && !t.enum.includes(v)) bad(`"${v}" not in enum`);
      break;
    case "integer":
      if (!Number.isInteger(v)) bad("not an integer");
      break;
    case "number":
      if (typeof v !== "number") bad("not a number");
      break;
    case "boolean":
      if (typeof v !== "boolean") bad("not a boolean");
      break;
    case "array":
      if (!Array.isArray(v)) bad("not an array");
      else v.forEach((x, i) => check(doc, t.items as Json, x, `${path}[${i}]`, out));
      break;
    case "object": {
      if (typeof v !== "object" || v === null || Array.isArray(v)) {
        bad("not an object");
        break;
      }
      const props = (t.properties ?? {}) as Record<string, Json>;
      const rec = v as Record<string, unknown>;
      for (const r of (t.required ?? []) as string[]) if (!(r in rec)) bad(`missing ${r}`);
      if (t.additionalProperties !== undefined) break;
      for (const [k, x] of Object.entries(rec)) {
        const p = props[k];
        if (p === undefined) bad(`unknown property ${k}`);
        else check(doc, p, x, `${path}.${k}`, out);
      }
      break;
    }
    default:
      bad(`schema without type: ${JSON.stringify(t).slice(0, 80)}`);
  }
  return out;
}

/** The response schema of an operation (200). */
export function responseSchema(doc: Doc, path: string, method: string): Json {
  const op = doc.paths[path]?.[method] as { responses: Record<string, { content: Record<string, { schema: Json }> }> } | undefined;
  const s = op?.responses["200"]?.content["application/json"]?.schema;
  if (s === undefined) throw new Error(`no operation ${method} ${path}`);
  return s;
}

/** A random value of schema `s` (depth-limited); arrays are short. */
export function generate(doc: Doc, s: Json, rng: Rng, depth = 0): unknown {
  const t = resolve(doc, s);
  switch (t.type) {
    case "string":
      return Array.isArray(t.enum) ? t.enum[rng.int(t.enum.length)] : rng.pick(["", "a", "/tmp", "x".repeat(rng.int(40)), "../..", "1-2", "debug", "gpu:1", "é\u0000"]);
    case "integer":
      return rng.pick([0, 1, -1, 7, 2147483647, 4294967296, rng.int(100000)]);
    case "number":
      return rng.int(1000) / 7;
    case "boolean":
      return rng.int(2) === 0;
    case "array":
      return depth > 4 ? [] : Array.from({ length: rng.int(3) }, () => generate(doc, t.items as Json, rng, depth + 1));
    case "object": {
      const out: Record<string, unknown> = {};
      if (depth > 4) return out;
      for (const [k, p] of Object.entries((t.properties ?? {}) as Record<string, Json>)) if (rng.int(3) === 0) out[k] = generate(doc, p, rng, depth + 1);
      return out;
    }
    default:
      return null;
  }
}

/** Break a value: wrong types, unknown keys, nulls, deep nesting, huge strings. */
export function mutate(v: unknown, rng: Rng): unknown {
  const pickOne = rng.int(8);
  if (typeof v === "object" && v !== null && !Array.isArray(v) && pickOne < 5) {
    const rec = { ...(v as Record<string, unknown>) };
    const keys = Object.keys(rec);
    const k = keys.length > 0 ? keys[rng.int(keys.length)]! : "x";
    if (pickOne === 0) rec[`unknown_${rng.int(100)}`] = 1;
    else if (pickOne === 1) rec[k] = rng.pick([null, 3.5, "str", [], {}, true, -1]);
    else if (pickOne === 2) rec[k] = mutate(rec[k], rng);
    else if (pickOne === 3) rec[k] = JSON.parse("[".repeat(40) + "]".repeat(40));
    else rec[k] = "y".repeat(rng.int(3) === 0 ? 70000 : 10);
    return rec;
  }
  return rng.pick([null, 0, "x", [v], { job: v }, true]);
}

export { createRng };
