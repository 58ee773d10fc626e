/**
 * @module format/sdiag-rpc
 * The end of sdiag's report in 22.05's layout: the clock's latency line, the RPC statistics by
 * message type (Spur's methods under Slurm's message names, compat/rpc-message-types.ts) and by
 * user, and the pending RPCs (Spur queues none: "No pending RPCs"). Counts by default, most
 * first; -i by message number (uid), -t by total time, -T by average time, each most first but
 * -i (oracle 22.05 `sdiag` after a run of client commands). Times are microseconds. Pure.
 */
import { rpcMessageType } from "../rpc-message-types.ts";

export interface RpcRow {
  name: string;
  id: number;
  count: number;
  totalUs: number;
}

export type RpcSort = "count" | "id" | "time" | "time2";

const average = (r: RpcRow): number => (r.count > 0 ? Math.floor(r.totalUs / r.count) : 0);

function sorted(rows: RpcRow[], by: RpcSort): RpcRow[] {
  const key: Record<RpcSort, (a: RpcRow, b: RpcRow) => number> = {
    count: (a, b) => b.count - a.count,
    id: (a, b) => a.id - b.id,
    time: (a, b) => b.totalUs - a.totalUs,
    time2: (a, b) => average(b) - average(a),
  };
  return rows.map((r, i) => ({ r, i })).sort((a, b) => key[by](a.r, b.r) || a.i - b.i).map((x) => x.r);
}

/** Rows of one served path each, merged under their Slurm message name. */
export function byMessageType(rows: readonly RpcRow[]): RpcRow[] {
  const out = new Map<string, RpcRow>();
  for (const r of rows) {
    const t = rpcMessageType(r.name);
    const seen = out.get(t.name);
    if (seen === undefined) out.set(t.name, { name: t.name, id: t.id, count: r.count, totalUs: r.totalUs });
    else {
      seen.count += r.count;
      seen.totalUs += r.totalUs;
    }
  }
  return [...out.values()];
}

const counts = (r: RpcRow): string => `count:${String(r.count).padEnd(6)} ave_time:${String(average(r)).padEnd(6)} total_time:${Math.round(r.totalUs)}`;

export function rpcSection(byMethod: readonly RpcRow[], byUser: readonly RpcRow[], clockLatencyUs: number, sort: RpcSort): string[] {
  return [
    `Latency for 1000 calls to gettimeofday(): ${Math.round(clockLatencyUs)} microseconds`,
    "",
    "Remote Procedure Call statistics by message type",
    ...sorted(byMessageType(byMethod), sort).map((r) => `\t${r.name.padEnd(40)}(${String(r.id).padStart(5)}) ${counts(r)}`),
    "",
    "Remote Procedure Call statistics by user",
    ...sorted([...byUser], sort).map((r) => `\t${r.name.padEnd(16)}(${String(r.id).padStart(8)}) ${counts(r)}`),
    "",
    "Pending RPC statistics",
    "\tNo pending RPCs",
    "",
  ];
}
