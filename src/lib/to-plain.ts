/**
 * @module to-plain
 * Strips protobuf-es message brands ($typeName, $unknown) from a decoded message
 * so it can be stored in controller state and logged as plain JSON.
 */
import type { Plain } from "./plain.ts";

export function toPlain<T>(value: T): Plain<T> {
  return strip(value) as Plain<T>;
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== "object" || value instanceof Uint8Array) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "$typeName" || k === "$unknown") continue;
    out[k] = strip(v);
  }
  return out;
}
