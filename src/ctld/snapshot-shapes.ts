/**
 * @module ctld/snapshot-shapes
 * Compact rows for many records of one kind (jobs, nodes) in a snapshot. Records with the
 * same key list (in the same order) share a "shape", and the first record of a shape is its
 * reference; every record is stored as the keys whose values differ from its reference's.
 * A job is about 2 KB of JSON, most of it defaults that every job repeats; its row is a
 * tenth of that. A key that holds undefined (which JSON would drop, and a later assignment
 * would then re-add at the end) is part of the shape, so even its position survives. Nested plain objects named in `nested` (a job's info and spec) get shapes
 * of their own. Decoding spreads the reference (keeping the key order exactly: the state's
 * JSON, and listings built from it, follow it) and writes the differences over it; object
 * values taken from a reference are copied, so no two records share a mutable value.
 * Pure: no I/O. Failure policy: a record whose nested key is not a plain object is refused
 * (throws): a snapshot that cannot be read back must not be written.
 */

import { compactCopy, literalFunction } from "../lib/compact-record.ts";

type Plain = Record<string, unknown>;

/** A row: [shape id, differences, ...rows of the nested keys, in `nested` order]. */
export type Row = [number, Plain, ...Row[]];

export interface ShapeTable {
  /** Per shape: its key list and its reference record (nested and undefined keys hold placeholders). */
  keys: string[][];
  refs: Plain[];
  /** Per shape: the keys that hold undefined. */
  undef: string[][];
  /** The shape tables of the nested keys, in `nested` order. */
  nested: ShapeTable[];
}

const isPlain = (v: unknown): v is Plain => typeof v === "object" && v !== null && !Array.isArray(v);

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Copy of a JSON value (objects and arrays fresh, all the way down), so no two records share
 * a value one of them may change. A frozen value cannot change: it is shared as it is (an
 * interned environment or empty list, sched/model/intern.ts).
 */
export function copyJson(v: unknown): unknown {
  if (typeof v !== "object" || v === null || Object.isFrozen(v)) return v;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyJson(v[i]);
    return out;
  }
  const out: Plain = {};
  for (const k in v as Plain) out[k] = copyJson((v as Plain)[k]);
  return out;
}

export class ShapeEncoder {
  readonly table: ShapeTable = { keys: [], refs: [], undef: [], nested: [] };
  private readonly bySignature = new Map<string, number>();
  private last = -1;
  private readonly subs: ShapeEncoder[];

  constructor(private readonly nested: readonly string[] = [], subNested: readonly (readonly string[])[] = []) {
    this.subs = nested.map((_, i) => new ShapeEncoder(subNested[i] ?? []));
    this.table.nested = this.subs.map((s) => s.table);
  }

  encode(record: Plain): Row {
    const keys = Object.keys(record);
    const shape = this.shapeOf(keys, record);
    const ref = this.table.refs[shape] as Plain;
    const diff: Plain = {};
    for (const k of keys) {
      const v = record[k];
      if (v === undefined || this.nested.includes(k)) continue;
      if (!sameValue(v, ref[k])) diff[k] = v;
    }
    const row: Row = [shape, diff];
    this.nested.forEach((k, i) => {
      const v = record[k];
      if (!isPlain(v)) throw new Error(`snapshot: ${k} of a record is not an object`);
      row.push((this.subs[i] as ShapeEncoder).encode(v));
    });
    return row;
  }

  private shapeOf(keys: string[], record: Plain): number {
    if (this.last >= 0 && this.fits(this.last, keys, record)) return this.last;
    const signature = keys.map((k) => (record[k] === undefined ? `${k}\u0001` : k)).join("\u0000");
    let shape = this.bySignature.get(signature);
    if (shape === undefined) {
      shape = this.table.keys.length;
      this.bySignature.set(signature, shape);
      this.table.keys.push(keys);
      this.table.undef.push(keys.filter((k) => record[k] === undefined));
      const ref: Plain = {};
      for (const k of keys) ref[k] = this.nested.includes(k) || record[k] === undefined ? 0 : record[k];
      this.table.refs.push(ref);
    }
    this.last = shape;
    return shape;
  }

  /** Has `record` (with these keys) the key list and undefined keys of `shape`? */
  private fits(shape: number, keys: string[], record: Plain): boolean {
    const ref = this.table.refs[shape] as Plain;
    if (!sameKeys(this.table.keys[shape] as string[], keys)) return false;
    const undef = this.table.undef[shape] as string[];
    let n = 0;
    for (const k of keys) {
      if (record[k] !== undefined) continue;
      if (!(k in ref) || undef[n] !== k) return false;
      n++;
    }
    return n === undef.length;
  }
}

/** Builds one record of a shape: (reference, differences, copy, nested records) -> record. */
type Builder = (ref: Plain, diff: Plain, copy: (v: unknown) => unknown, nested: Plain[]) => Plain;

/**
 * A builder for a shape: one object literal holding every key in the shape's order
 * (lib/compact-record.ts's literalFunction), so the engine lays the record out compactly in one
 * allocation, instead of a spread, per-key writes and a compacting copy (100k jobs: ~7 µs a
 * job that way, most of a restore). Undefined when the plain `d.key` read could be wrong:
 * "__proto__", or a key Object.prototype has (a missing difference would read the inherited
 * value); such shapes take the general path.
 */
function builderFor(keys: readonly string[], undef: readonly string[], objectKeys: readonly string[], nested: readonly string[]): Builder | undefined {
  if (keys.some((k) => k in Object.prototype)) return undefined;
  // A difference is never undefined (it comes from JSON), so `!== undefined` means "present".
  return literalFunction<Builder>(["r", "d", "c", "n"], keys, (q, k) => {
    const n = nested.indexOf(k);
    if (n >= 0) return `n[${n}]`;
    if (undef.includes(k)) return "undefined";
    return objectKeys.includes(k) ? `(d[${q}] !== undefined ? d[${q}] : c(r[${q}]))` : `(d[${q}] !== undefined ? d[${q}] : r[${q}])`;
  });
}

export class ShapeDecoder {
  /** Per shape: the keys of the reference that hold objects (copied for each record). */
  private readonly objectKeys: string[][];
  private readonly subs: ShapeDecoder[];
  /** Per shape: its key list as a set (a difference outside it takes the general path). */
  private readonly keySets: Set<string>[];
  /** Per shape: its builder, made on first use; null where the shape takes the general path. */
  private readonly builders: (Builder | null | undefined)[];

  constructor(
    private readonly table: ShapeTable,
    private readonly nested: readonly string[] = [],
    subNested: readonly (readonly string[])[] = [],
  ) {
    this.objectKeys = table.refs.map((ref) => Object.keys(ref).filter((k) => typeof ref[k] === "object" && ref[k] !== null && !nested.includes(k)));
    this.subs = nested.map((_, i) => new ShapeDecoder(table.nested[i] as ShapeTable, subNested[i] ?? []));
    this.keySets = table.keys.map((keys) => new Set(keys));
    this.builders = table.keys.map(() => undefined);
  }

  decode(row: Row): Plain {
    const shape = row[0];
    const ref = this.table.refs[shape];
    if (ref === undefined) throw new Error(`snapshot: row of unknown shape ${shape}`);
    const diff = row[1];
    const nested: Plain[] = [];
    for (let i = 0; i < this.nested.length; i++) nested.push((this.subs[i] as ShapeDecoder).decode(row[2 + i] as Row));
    const build = this.builderOf(shape, diff);
    return build === null ? this.decodeGeneral(shape, ref, diff, nested) : build(ref, diff, copyJson, nested);
  }

  private builderOf(shape: number, diff: Plain): Builder | null {
    const keys = this.keySets[shape] as Set<string>;
    for (const k in diff) if (!keys.has(k)) return null;
    let build = this.builders[shape];
    if (build === undefined) {
      const nestedHere = this.nested.filter((k) => keys.has(k));
      build = nestedHere.length === this.nested.length ? (builderFor(this.table.keys[shape] as string[], this.table.undef[shape] as string[], this.objectKeys[shape] as string[], this.nested) ?? null) : null;
      this.builders[shape] = build;
    }
    return build;
  }

  /** Any shape and difference: spread the reference, write the differences, compact. */
  private decodeGeneral(shape: number, ref: Plain, diff: Plain, nested: Plain[]): Plain {
    const out: Plain = { ...ref };
    for (const k of this.table.undef[shape] as string[]) out[k] = undefined;
    for (const k of this.objectKeys[shape] as string[]) if (!(k in diff)) out[k] = copyJson(ref[k]);
    for (const k in diff) out[k] = diff[k];
    for (let i = 0; i < this.nested.length; i++) out[this.nested[i] as string] = nested[i];
    // A spread of a parsed reference keeps the engine's roomy layout: about 15% more per job (lib/compact-record.ts).
    return compactCopy(out);
  }
}
