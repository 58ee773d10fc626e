/**
 * Canonical text of a ClusterState, for "equal state" checks across replicas and
 * replays: Maps and Sets become arrays in their iteration order (that order is part
 * of the state: listings follow it), undefined fields are dropped, the state's own fields
 * in name order.
 */
import type { ClusterState } from "../../../src/sched/model/types.ts";

export function canonical(state: ClusterState): string {
  // The state's own fields by name: an optional part (deletedReservations, purgedUsage) is added
  // when first needed, and a snapshot restore adds the parts in name order; which came first means nothing.
  const fields = state as unknown as Record<string, unknown>;
  const sorted = Object.fromEntries(Object.keys(fields).sort().map((k) => [k, fields[k]]));
  return JSON.stringify(sorted, (_key, value: unknown) => {
    if (value instanceof Map) return { map: [...value.entries()] };
    if (value instanceof Set) return { set: [...value.values()] };
    if (typeof value === "bigint") return `${value}n`;
    return value;
  });
}
