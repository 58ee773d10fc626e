/**
 * @module rest/serialize-shares
 * The fair-share tree (sshare's rows, in tree order) as data_parser's shares list:
 * GET /slurm/<v>/shares and `sshare --json` both print it. Each row's parent is the
 * nearest account row above it one level up; user rows are type USER, the rest
 * ASSOCIATION (as slurmrestd marks them).
 */
import type { Plain } from "../../lib/plain.ts";
import type { SharesResponse } from "../gen/spur/v1/controller_pb.ts";
import { value } from "./schemas-common.ts";

export function sharesValue(res: Plain<SharesResponse>) {
  const parents: string[] = [];
  const shares = res.rows.map((r) => {
    const parent = r.depth === 0 ? "" : (parents[r.depth - 1] ?? "");
    if (r.user === "") parents[r.depth] = r.account;
    return {
      id: r.assocId, cluster: res.cluster, name: r.user === "" ? r.account : r.user, parent, partition: r.partition,
      shares: value(Math.round(r.rawShares)), effective_usage: Number.isFinite(r.effectvUsage) ? r.effectvUsage : 0,
      usage: Math.round(r.rawUsage),
      fairshare: { factor: Number.isFinite(r.fairshare) ? r.fairshare : 0, level: Number.isFinite(r.levelFs) ? r.levelFs : 0 },
      type: [r.user === "" ? "ASSOCIATION" : "USER"],
    };
  });
  const total = res.rows.filter((r) => r.depth === 1).reduce((n, r) => n + Math.round(r.rawShares), 0);
  return { shares: { shares, total_shares: total } };
}
