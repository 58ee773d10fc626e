/**
 * @module lib/compact-record
 * A shallow copy of a record laid out in as little memory as the engine allows. A job's info
 * (70-odd keys) and spec (60-odd) are built key by key (Object.assign, JSON.parse, spreads of
 * parsed objects), and JavaScriptCore then keeps their properties in out-of-line storage that
 * grows by doubling: about 1.3-1.5 KB for an info that fits in 0.78 KB when the object is made
 * by one object literal holding every key. With 100k queued jobs that is ~100 MiB of the
 * controller's heap (bench/scale/mem-heap.ts measures it). So records the state keeps for a
 * long time are copied once through such a literal, generated per key list and cached.
 * The copy has the same keys in the same order (listings and snapshots follow that order) and
 * the same values (shared, not cloned: the original is dropped); only object identity differs.
 * Pure apart from the cache, which is bounded: past MAX_SHAPES key lists, a spread is used.
 */

type Plain = Record<string, unknown>;
type Maker = (o: Plain) => Plain;

/** Key lists seen so far (a job has a handful: optional keys come and go with the options used). */
const makers = new Map<string, Maker>();
const MAX_SHAPES = 512;

/**
 * The last few key lists looked up, checked first by comparing keys one by one: joining
 * 70-odd keys into a map key on every submission showed as ~3% of a follower's samples.
 */
const recent: { keys: readonly string[]; make: Maker }[] = [];
const RECENT = 8;

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function makerFor(keys: readonly string[]): Maker | undefined {
  for (const r of recent) if (sameKeys(r.keys, keys)) return r.make;
  const make = makerByJoinedKeys(keys);
  if (make !== undefined) {
    if (recent.length >= RECENT) recent.pop();
    recent.unshift({ keys, make });
  }
  return make;
}

function makerByJoinedKeys(keys: readonly string[]): Maker | undefined {
  const id = keys.join("\0");
  const known = makers.get(id);
  if (known !== undefined || makers.size >= MAX_SHAPES) return known;
  const made = literalFunction<Maker>(["o"], keys, (quoted) => `o[${quoted}]`);
  if (made !== undefined) makers.set(id, made);
  return made;
}

/**
 * A function of `params` that returns one object literal holding `keys` in their order, each
 * key's value the expression `valueOf` writes for it (given the key quoted, and as it is).
 * Plain (not computed) keys let the engine size the object for them all at once; they are
 * quoted by JSON.stringify. Undefined for a list with "__proto__", which a literal would take
 * as the prototype: such lists are spread by the caller.
 */
export function literalFunction<F>(params: readonly string[], keys: readonly string[], valueOf: (quoted: string, key: string) => string): F | undefined {
  if (keys.includes("__proto__")) return undefined;
  const fields = keys.map((k) => {
    const quoted = JSON.stringify(k);
    return `${quoted}: ${valueOf(quoted, k)}`;
  });
  return new Function(...params, `return {${fields.join(",")}};`) as F;
}

/** `o`'s own enumerable keys and values, in order, in a compact object of its own. */
export function compactCopy<T extends object>(o: T): T {
  const keys = Object.keys(o);
  if (keys.length < 8) return { ...o };
  const make = makerFor(keys);
  return (make === undefined ? { ...o } : make(o as Plain)) as T;
}
