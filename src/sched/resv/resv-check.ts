/**
 * @module sched/resv/resv-check
 * Reservations in scheduling: a job that asked for a reservation waits with
 * reason Reservation until its window is open and then may use only its
 * nodes; every other job keeps off nodes that a reservation holds at any time
 * during the job's run ([now, now + time limit)). MAINT reservations hold
 * their nodes the same way. Pure.
 */
import type { ClusterState, JobRecord } from "../model/types.ts";
import { isActive, reservedAgainst } from "./types.ts";

export function resvReason(state: ClusterState, job: JobRecord, now: number): string {
  const name = job.info.reservation;
  if (name === "") return "";
  const r = state.reservations.get(name);
  if (r === undefined) return "ReservationDeleted";
  return isActive(r, now) ? "" : "Reservation";
}

/** Which node names the job may be placed on now; undefined = no restriction. */
export function resvNodeFilter(state: ClusterState, job: JobRecord, now: number, durationSec: number): ((node: string) => boolean) | undefined {
  if (state.reservations.size === 0) return undefined;
  const own = job.info.reservation === "" ? undefined : state.reservations.get(job.info.reservation);
  const blocked = reservedAgainst(state.reservations, job.info.reservation, now, durationSec);
  if (own !== undefined) {
    const mine = new Set(own.nodes);
    return (n) => mine.has(n) && !blocked.has(n);
  }
  return blocked.size === 0 ? undefined : (n) => !blocked.has(n);
}
