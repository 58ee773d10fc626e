/**
 * @module sched/acct/share-columns
 * `sshare -l`'s GrpTRESMins (the association's own limit, as sacctmgr shows it) and
 * TRESRunMins (the TRES-minutes its subtree's running jobs have left before their time
 * limits, every tracked TRES in Slurm's order, zeros included) at the controller's `now`.
 */
import type { ClusterState } from "../model/types.ts";
import { tresOut } from "./fields.ts";
import { jobUsageTables } from "./limits.ts";
import { tresRunMinsText } from "./usage.ts";

/** Slurm's always-tracked TRES, before the AccountingStorageTRES extras (gres/gpu, licenses ...). */
const BASE_TRES = ["cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages"] as const;
/** How many of trackedTres's first entries are Slurm's own (ids 1-8); the others' ids start at 1001. */
export const BASE_TRES_COUNT = BASE_TRES.length;

export function trackedTres(state: ClusterState): string[] {
  const out: string[] = [...BASE_TRES];
  // GPUs count in jobs' TRES on a cluster that has them (or names gpu in GresTypes) whether or not
  // AccountingStorageTRES lists gres/gpu, so they are tracked here too (oracle 22.05: gres/gpu=0 last)
  if ((state.config.gresTypes ?? []).includes("gpu") || [...state.nodes.values()].some((n) => n.info.gpuCount > 0)) out.push("gres/gpu");
  for (const name of state.config.accountingTres ?? []) if (!out.includes(name)) out.push(name);
  return out;
}

export interface ShareLimitColumns {
  grpTresMins: string;
  tresRunMins: string;
}

/** The two columns for every association, by id. */
export function shareLimitColumns(state: ClusterState, now: number): Map<number, ShareLimitColumns> {
  const tables = jobUsageTables(state, now);
  const tracked = trackedTres(state);
  const out = new Map<number, ShareLimitColumns>();
  for (const a of state.acct.assocs.values()) {
    out.set(a.id, { grpTresMins: tresOut(a.limits.grpTresMins), tresRunMins: tresRunMinsText(tables.byAssoc.get(a.id), tracked) });
  }
  return out;
}
