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

const overlap = (a: number, b: number, c: number, d: number): number => Math.max(0, Math.min(b, d) - Math.max(a, c));

/** Down and PLND Down of one TRES in the window, and what the reservations lose to them (CPU-seconds). */
export function downCharges(
  nodes: readonly Node[], spans: readonly DownSpan[], resvs: readonly Resv[], tres: string, w: { start: number; end: number }, now: number,
): DownCharges {
  const out: DownCharges = { down: 0, plannedDown: 0, resvAllocatedCut: 0, resvPlannedDownCut: 0 };
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const members = resvs.map((r) => {
    const hosts = expandHostlist(r.nodes);
    return new Set(hosts.ok ? hosts.value : []);
  });
  // what is left of each reservation's CPU time in the window, as the cuts take it
  const left = resvs.map((r) => overlap(w.start, Math.min(w.end, now), Math.floor(r.startTime), Math.floor(r.endTime)) * r.coreCount);
  for (const s of spans) {
    const n = byName.get(s.node);
    if (n === undefined) continue;
    const from = Math.max(w.start, Math.floor(n.firstRegisteredTime ?? w.start), Math.floor(s.start));
    const to = Math.min(w.end, Math.floor(s.end > 0 ? s.end : now));
    if (to <= from) continue;
    const count = clusterTresCount([n], tres);
    let inMaint = 0;
    resvs.forEach((r, i) => {
      if (!members[i]?.has(s.node)) return;
      const secs = overlap(from, to, Math.floor(r.startTime), Math.floor(r.endTime));
      if (secs <= 0) return;
      const maint = r.flags.includes("MAINT");
      if (maint) inMaint += secs;
      if (tres !== "cpu" || r.flags.includes("IGNORE_JOBS")) return;
      const cut = Math.min(left[i] ?? 0, clusterTresCount([n], "cpu") * secs);
      left[i] = (left[i] ?? 0) - cut;
      if (maint) out.resvPlannedDownCut += cut;
      else out.resvAllocatedCut += cut;
    });
    const maintSecs = Math.min(inMaint, to - from);
    out.plannedDown += count * maintSecs;
    out.down += count * (to - from - maintSecs);
  }
  return out;
}
