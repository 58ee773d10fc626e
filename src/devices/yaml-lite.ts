/**
 * @module devices/yaml-lite
 * A tiny YAML emitter for JSON-shaped data (objects, arrays, strings, finite
 * numbers, booleans, null): block style, two-space indent, strings quoted
 * whenever a plain scalar could read back as something else. No parser here.
 */
import { assert } from "../lib/assert.ts";

const PLAIN = /^[A-Za-z_/][A-Za-z0-9_./=:+-]*$/;
const RESERVED = /^(true|false|yes|no|on|off|y|n|null|~|\.inf|\.nan|-?\.inf)$/i;
const DEPTH_MAX = 64;

/** A string as a YAML scalar: plain when unambiguous, else JSON double-quoted (valid YAML). */
export function yamlString(value: string): string {
  if (PLAIN.test(value) && !RESERVED.test(value) && !value.includes(": ") && !value.endsWith(":")) return value;
  return JSON.stringify(value);
}

function scalar(value: unknown): string | undefined {
  if (value === null) return "null";
  if (typeof value === "string") return yamlString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    assert(Number.isFinite(value), "YAML numbers are finite");
    return String(value);
  }
  if (Array.isArray(value) && value.length === 0) return "[]";
  if (typeof value === "object" && Object.keys(value as object).length === 0) return "{}";
  return undefined;
}

function definedEntries(obj: object): [string, unknown][] {
  return Object.entries(obj).filter(([, v]) => v !== undefined);
}

function emitNode(value: unknown, indent: number, out: string[], depth: number): void {
  assert(depth < DEPTH_MAX, "YAML value nests too deeply");
  const pad = " ".repeat(indent);
  if (Array.isArray(value)) {
    for (const item of value) {
      const s = scalar(item);
      if (s !== undefined) {
        out.push(`${pad}- ${s}`);
        continue;
      }
      // The first key of a mapping shares the "- " line; the rest align under it.
      const start = out.length;
      emitNode(item, indent + 2, out, depth + 1);
      out[start] = `${pad}- ${out[start]!.slice(indent + 2)}`;
    }
    return;
  }
  assert(typeof value === "object" && value !== null, "YAML nodes are arrays or objects here");
  for (const [key, v] of definedEntries(value)) {
    const s = scalar(v);
    if (s !== undefined) out.push(`${pad}${yamlString(key)}: ${s}`);
    else {
      out.push(`${pad}${yamlString(key)}:`);
      emitNode(v, indent + 2, out, depth + 1);
    }
  }
}

/** YAML text for a JSON-shaped value; object keys with undefined values are left out, as JSON.stringify does. */
export function emitYaml(value: unknown): string {
  const s = scalar(value);
  if (s !== undefined) return `${s}\n`;
  const out: string[] = [];
  emitNode(value, 0, out, 0);
  return out.join("\n") + "\n";
}
