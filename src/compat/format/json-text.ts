/**
 * @module format/json-text
 * The same bytes as openapi-json's writeOpenapiJson (json-c's layout: two-space
 * indent, "/" escaped, doubles with a fraction, empty containers split over two
 * lines), built for 10k-record documents: one list of pieces joined once, and
 * strings scanned by one regex test instead of per character.
 */
import { JsonDouble, type JsonValue } from "./openapi-json.ts";

/** Characters json-c escapes; everything else is copied as is. */
const NEEDS_ESCAPE = /["\\/\u0000-\u001f]/;
const NEEDS_ESCAPE_ALL = /["\\/\u0000-\u001f]/g;

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  "\\": "\\\\",
  "/": "\\/",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

function escapeChar(ch: string): string {
  return ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/** A JSON string literal exactly as writeOpenapiJson prints it. */
export function jsonString(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return `"${text}"`;
  return `"${text.replace(NEEDS_ESCAPE_ALL, escapeChar)}"`;
}

function doubleText(value: number): string {
  if (!Number.isFinite(value)) return "null";
  const text = String(value);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

/** Indents by depth, built once. */
const INDENTS: string[] = [""];
function indentOf(depth: number): string {
  while (INDENTS.length <= depth) INDENTS.push(`${INDENTS[INDENTS.length - 1] ?? ""}  `);
  return INDENTS[depth] ?? "";
}

/** Per depth: the text before a key's value, first in its object / after a comma. */
const KEY_PREFIXES: Map<string, [string, string]>[] = [];
function keyPrefixes(depth: number): Map<string, [string, string]> {
  while (KEY_PREFIXES.length <= depth) KEY_PREFIXES.push(new Map());
  return KEY_PREFIXES[depth] as Map<string, [string, string]>;
}

function writeContainer(value: readonly JsonValue[] | { readonly [key: string]: JsonValue }, depth: number, out: string[]): void {
  const indent = indentOf(depth);
  const inner = indentOf(depth + 1);
  if (Array.isArray(value)) {
    const items = value as readonly JsonValue[];
    if (items.length === 0) {
      out.push("[\n", indent, "]");
      return;
    }
    out.push("[\n");
    for (let i = 0; i < items.length; i++) {
      out.push(i === 0 ? inner : `,\n${inner}`);
      writeValue(items[i] as JsonValue, depth + 1, out);
    }
    out.push("\n", indent, "]");
    return;
  }
  const record = value as { readonly [key: string]: JsonValue };
  const keys = Object.keys(record);
  if (keys.length === 0) {
    out.push("{\n", indent, "}");
    return;
  }
  const prefixes = keyPrefixes(depth + 1);
  out.push("{\n");
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    let prefix = prefixes.get(key);
    if (prefix === undefined) {
      prefix = [`${inner}${jsonString(key)}: `, `,\n${inner}${jsonString(key)}: `];
      if (prefixes.size < 4096) prefixes.set(key, prefix);
    }
    out.push(prefix[i === 0 ? 0 : 1]);
    writeValue(record[key] as JsonValue, depth + 1, out);
  }
  out.push("\n", indent, "}");
}

function writeValue(value: JsonValue, depth: number, out: string[]): void {
  if (value === null) out.push("null");
  else if (typeof value === "boolean") out.push(value ? "true" : "false");
  else if (typeof value === "number") out.push(Number.isFinite(value) ? String(Math.trunc(value)) : "null");
  else if (typeof value === "string") out.push(jsonString(value));
  else if (value instanceof JsonDouble) out.push(doubleText(value.value));
  else writeContainer(value, depth, out);
}

/** The whole document, without a trailing newline (= writeOpenapiJson(value)). */
export function writeJsonText(value: JsonValue): string {
  const out: string[] = [];
  writeValue(value, 0, out);
  return out.join("");
}
