/**
 * @module lib/json-pretty
 * The bytes of `JSON.stringify(value, null, 2)`, written piece by piece so that a big
 * document (`squeue --json` with 10k jobs is ~70 MiB) can be produced one record at a
 * time: `prettyJsonAt(value, depth)` is a record's text as it appears at `depth` inside the
 * whole document, so the document is its parts concatenated.
 * Why not JSON.stringify per record: with 10k 125-key job records JavaScriptCore's
 * stringify was measured slower than this writer, which caches each key's
 * `,\n<indent>"key": ` per depth and copies strings that need no escaping as they are.
 * Anything that is not a plain object, array, string, number, boolean or null (toJSON,
 * undefined, bigint...) is handed to JSON.stringify itself, so the result cannot differ.
 */

/** Characters JSON.stringify escapes (controls, quote, backslash, any surrogate half). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

const INDENTS: string[] = [""];
function indentOf(depth: number): string {
  while (INDENTS.length <= depth) INDENTS.push(`${INDENTS[INDENTS.length - 1] ?? ""}  `);
  return INDENTS[depth] ?? "";
}

/** Per depth: key → [text before its value when first in its object, when after a comma]. */
const KEY_PREFIXES: Map<string, [string, string]>[] = [];
/** A bound on the keys remembered per depth (a document with free-form keys must not grow it). */
const KEYS_PER_DEPTH_MAX = 4096;

function keyPrefix(depth: number, key: string, first: boolean): string {
  while (KEY_PREFIXES.length <= depth) KEY_PREFIXES.push(new Map());
  const prefixes = KEY_PREFIXES[depth] as Map<string, [string, string]>;
  let prefix = prefixes.get(key);
  if (prefix === undefined) {
    const inner = indentOf(depth);
    prefix = [`${inner}${JSON.stringify(key)}: `, `,\n${inner}${JSON.stringify(key)}: `];
    if (prefixes.size < KEYS_PER_DEPTH_MAX) prefixes.set(key, prefix);
  }
  return prefix[first ? 0 : 1];
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

/** What JSON.stringify does with the value: written ("") or left out of an object (undefined). */
function isSkipped(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** JSON.stringify's own text for `value` at `depth` (its lines indented to the depth). */
function delegated(value: unknown, depth: number, out: string[]): void {
  const text = JSON.stringify(value, null, 2) as string | undefined;
  const indent = indentOf(depth);
  out.push(text === undefined ? "null" : depth === 0 ? text : text.replaceAll("\n", `\n${indent}`));
}

function writeArray(items: readonly unknown[], depth: number, out: string[]): void {
  if (items.length === 0) {
    out.push("[]");
    return;
  }
  const inner = `\n${indentOf(depth + 1)}`;
  const between = `,${inner}`;
  out.push("[");
  for (let i = 0; i < items.length; i++) {
    out.push(i === 0 ? inner : between);
    const item = items[i];
    if (isSkipped(item)) out.push("null");
    else writeValue(item, depth + 1, out);
  }
  out.push("\n", indentOf(depth), "]");
}

function writeObject(record: Record<string, unknown>, depth: number, out: string[]): void {
  let first = true;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const item = record[key];
    if (isSkipped(item)) continue;
    out.push(first ? `{\n${keyPrefix(depth + 1, key, true)}` : keyPrefix(depth + 1, key, false));
    first = false;
    writeValue(item, depth + 1, out);
  }
  out.push(first ? "{}" : `\n${indentOf(depth)}}`);
}

function writeValue(value: unknown, depth: number, out: string[]): void {
  switch (typeof value) {
    case "string":
      out.push(NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`);
      return;
    case "number":
      out.push(Number.isFinite(value) ? String(value) : "null");
      return;
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "object":
      if (value === null) out.push("null");
      else if (Array.isArray(value)) writeArray(value, depth, out);
      else if (isPlainObject(value)) writeObject(value as Record<string, unknown>, depth, out);
      else delegated(value, depth, out);
      return;
    default:
      delegated(value, depth, out);
  }
}

/**
 * `value`'s text as JSON.stringify(document, null, 2) writes it when the value sits at
 * `depth` (0 = the document itself; 2 = an item of a top-level member's array), pushed
 * onto `out` as pieces. A top-level `undefined` gives "null" here (stringify gives undefined).
 */
export function prettyJsonAt(value: unknown, depth: number, out: string[]): void {
  if (isSkipped(value)) out.push("null");
  else writeValue(value, depth, out);
}

/** `JSON.stringify(value, null, 2)` for a JSON value (tests and small documents). */
export function prettyJson(value: unknown): string {
  const out: string[] = [];
  prettyJsonAt(value, 0, out);
  return out.join("");
}

/**
 * A chunk is cut after the item that brings it to this many pieces (~60-120 KB of text for
 * job records). Small chunks let the reader drain the pipe while the next one is made: with
 * 10k jobs into a pipe, 8k pieces took 1.28 s wall / 0.74 s CPU against 1.60 / 1.00 for 64k
 * (one interleaved run; 1k-16k all within noise). Pieces, not characters, are counted:
 * summing lengths costs a pass over every piece.
 */
export const CHUNK_PIECES = 1 << 13;

/**
 * `JSON.stringify(doc, null, 2)` in chunks of about `chunkPieces` pieces, written as they are asked for:
 * the array members of the top-level object item by item, so no whole-document string exists.
 * `item(key, x)` turns an array item into what is written (e.g. a record built from a job),
 * called once per item when its turn comes; the default writes the item as it is.
 */
export function* prettyJsonChunks(
  doc: Record<string, unknown>,
  item: (key: string, x: unknown) => unknown = (_key, x) => x,
  chunkPieces = CHUNK_PIECES,
): Generator<string> {
  let out: string[] = [];
  const take = (): string => {
    const text = out.join("");
    out = [];
    return text;
  };
  let first = true;
  for (const key in doc) {
    if (!Object.hasOwn(doc, key)) continue;
    const value = doc[key];
    if (isSkipped(value)) continue;
    out.push(first ? `{\n${keyPrefix(1, key, true)}` : keyPrefix(1, key, false));
    first = false;
    if (!Array.isArray(value) || value.length === 0) {
      prettyJsonAt(value, 1, out);
      continue;
    }
    const items = value as readonly unknown[];
    for (let i = 0; i < items.length; i++) {
      out.push(i === 0 ? "[\n    " : ",\n    ");
      prettyJsonAt(item(key, items[i]), 2, out);
      if (out.length >= chunkPieces) yield take();
    }
    out.push("\n  ]");
  }
  out.push(first ? "{}" : "\n}");
  yield take();
}
