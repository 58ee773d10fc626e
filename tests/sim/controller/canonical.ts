/**
 * Canonical text of a ClusterState, for "equal state" checks across replicas and
 * replays: Maps and Sets become arrays in their iteration order (that order is part
 * of the state: listings follow it), undefined fields are dropped.
 */
import type { ClusterState } from "../../../src/sched/model/types.ts";

export function canonical(state: ClusterState): string {
  return JSON.stringify(state, (_key, value: unknown) => {
    if (value instanceof Map) return { map: [...value.entries()] };
    if (value instanceof Set) return { set: [...value.values()] };
    if (typeof value === "bigint") return `${value}n`;
    return value;
  });
}
