/**
 * Canonical text of a ClusterState, for "equal state" checks across replicas and
 * replays: Maps and Sets become arrays in their iteration order (that order is part
 * of the state: listings follow it), undefined fields are dropped.
 */
import type { ClusterState } from "../../../src/sched/model/types.ts";

/**
 * `byName`: the state's own fields in name order (replicas compared with each other: an optional
 * part, deletedReservations or purgedUsage, is added when first needed, and a snapshot restore
 * adds the parts in name order; which came first means nothing). Without it, as the state holds
 * them (the text of the recorded fixtures).
 */
export function canonical(state: ClusterState, opts: { byName?: boolean } = {}): string {
  const fields = state as unknown as Record<string, unknown>;
  const top = opts.byName === true ? Object.fromEntries(Object.keys(fields).sort().map((k) => [k, fields[k]])) : state;
  return JSON.stringify(top, (_key, value: unknown) => {
    if (value instanceof Map) return { map: [...value.entries()] };
    if (value instanceof Set) return { set: [...value.values()] };
    if (typeof value === "bigint") return `${value}n`;
    return value;
  });
}

/** A plain object's own keys in name order, at every depth; arrays keep their order. */
function keysSorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keysSorted);
  if (value === null || typeof value !== "object") return value;
  const o = value as Record<string, unknown>;
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, keysSorted(o[k])]));
}

/**
 * canonical() with every record's keys in name order: for comparing a state with text that an
 * older version wrote, whose records may list their keys in another order (the order is memory
 * layout, sched/model/records.ts; Map and array orders still count).
 */
export function canonicalKeysSorted(state: ClusterState): string {
  return JSON.stringify(keysSorted(JSON.parse(canonical(state))));
}

/** Recorded canonical() text with every record's keys in name order (see canonicalKeysSorted). */
export function keysSortedText(text: string): string {
  return JSON.stringify(keysSorted(JSON.parse(text)));
}
