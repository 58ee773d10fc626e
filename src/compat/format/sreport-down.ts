/**
 * @module format/sreport-down
 * sreport's Down for cluster Utilization, as slurmdbd's hourly rollup charges node events
 * (as_mysql_rollup.c, read for its rules): a node's time DOWN or drained counts its TRES as
 * Down, from the cluster's registration on; where the node was in a reservation at the time,
 * that part counts as Down (PLND Down in a MAINT reservation) and is taken off the
 * reservation's own time (the node's TRES times the overlap, never below 0), which would
 * otherwise count whole as Allocated (PLND Down for MAINT).
 */
import type { Plain } from "../../lib/plain.ts";
import type { NodeInfo } from "../../net/gen/spur/v1/types_pb.ts";
import type { ReservationInfo } from "../../net/gen/spur/v1/controller_pb.ts";
import { expandHostlist } from "../hostlist.ts";
import { clusterTresCount, type DownSpan } from "./sreport-tres.ts";

type Node = Plain<NodeInfo>;
type Resv = Plain<ReservationInfo>;

export interface DownCharges {
  /** TRES-seconds to Down. */
  down: number;
  /** TRES-seconds to PLND Down (a down node inside a MAINT reservation). */
  plannedDown: number;
  /** CPU-seconds taken off the reservations' time: Allocated ones, MAINT ones. */
  resvAllocatedCut: number;
  resvPlannedDownCut: number;
}

/**
 * Down and PLND Down of one TRES in the window, and what the reservations lose to them
 * (CPU-seconds), hour by hour as the rollup goes. Each hour, for a node's span clipped to the
 * hour: every reservation of that hour holding the node (in start order) takes the part of the
 * span inside it as Down (PLND Down if MAINT) and loses the node's CPUs times that part; the
 * rest of the span, from the node's registration on, is Down. As slurmdbd 22.05 computes that
 * rest, it subtracts the overlap with the LAST reservation holding the node that hour even when
 * that overlap is negative (a reservation of the same hour that begins after the span ended),
 * which adds the gap between them to Down: oracle 2026-12-05, n4 drained 07:03:00-07:09:00 and
 * in a MAINT reservation from 07:23:52: Down counted 07:03:00-07:23:52 (5488 CPU-seconds with n3's
 * 2 minutes DOWN). Spur follows it so that its figures are the oracle's.
 */
export function downCharges(
  nodes: readonly Node[], spans: readonly DownSpan[], resvs: readonly Resv[], tres: string, w: { start: number; end: number }, now: number,
): DownCharges {
  const out: DownCharges = { down: 0, plannedDown: 0, resvAllocatedCut: 0, resvPlannedDownCut: 0 };
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const members = new Map(resvs.map((r) => {
    const hosts = expandHostlist(r.nodes);
    return [r, new Set(hosts.ok ? hosts.value : [])] as const;
  }));
  const ordered = [...resvs].sort((a, b) => a.startTime - b.startTime);
  const last = Math.min(w.end, now);
  for (let hour = w.start; hour < last; hour += 3600) {
    const hourEnd = Math.min(hour + 3600, last);
    // the reservations of this hour, clipped to it, and what is left of each one's CPU time
    const inHour = ordered
      .map((r) => ({ r, start: Math.max(hour, Math.floor(r.startTime)), end: Math.min(hourEnd, Math.floor(r.endTime)) }))
      .filter((x) => x.end - x.start >= 1)
      .map((x) => ({ ...x, left: (x.end - x.start) * x.r.coreCount }));
    for (const s of spans) {
      const n = byName.get(s.node);
      if (n === undefined) continue;
      const rowStart = Math.max(hour, Math.floor(s.start));
      const rowEnd = Math.min(hourEnd, Math.floor(s.end > 0 ? s.end : now));
      if (rowEnd - rowStart < 1) continue;
      const count = clusterTresCount([n], tres);
      let resvSeconds = 0;
      for (const x of inHour) {
        if (!members.get(x.r)?.has(s.node)) continue;
        resvSeconds = Math.min(x.end, rowEnd) - Math.max(x.start, rowStart);
        if (resvSeconds < 1) continue;
        const maint = x.r.flags.includes("MAINT");
        if (maint) out.plannedDown += count * resvSeconds;
        else out.down += count * resvSeconds;
        if (tres !== "cpu") continue;
        const cut = Math.min(x.left, clusterTresCount([n], "cpu") * resvSeconds);
        x.left -= cut;
        if (x.r.flags.includes("IGNORE_JOBS")) continue;
        if (maint) out.resvPlannedDownCut += cut;
        else out.resvAllocatedCut += cut;
      }
      const from = Math.max(rowStart, Math.floor(n.firstRegisteredTime ?? hour));
      const seconds = rowEnd - from;
      if (seconds < 1) continue;
      const rest = seconds - resvSeconds;
      if (rest > 0) out.down += count * rest;
    }
  }
  return out;
}
