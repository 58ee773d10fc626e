/**
 * @module sched/model/tres
 * Trackable-resource strings as Slurm prints them (TRES=, AllocTRES, ReqTRES):
 * "cpu=4,mem=1000M,node=1,billing=4,gres/gpu=2". Memory is shown in the largest
 * unit Slurm's exact conversion reaches (lib/num-unit.ts: 1536M is 1.50G).
 */
import { exactUnits } from "../../lib/num-unit.ts";

export function memText(mib: number): string {
  return mib === 0 ? "0M" : exactUnits(mib, 2);
}

/** `billing` is false for steps: Slurm bills only the job allocation (107-sacct-j-gpu). */
export function tresText(cpus: number, memMiB: number, nodes: number, gpus: number, billing = true): string {
  const parts = [`cpu=${cpus}`, `mem=${memText(memMiB)}`, `node=${nodes}`, ...(billing ? [`billing=${cpus}`] : [])];
  if (gpus > 0) parts.push(`gres/gpu=${gpus}`);
  return parts.join(",");
}

/**
 * `,license/NAME=N` for each license Slurm tracks as a TRES (AccountingStorageTRES lists
 * `license/NAME`), appended after the node TRES as Slurm orders them; "" when none is tracked.
 */
export function licenseTres(items: readonly { name: string; count: number }[], tracked: readonly string[] | undefined): string {
  const listed = new Set(tracked ?? []);
  return items.filter((i) => listed.has(`license/${i.name.toLowerCase()}`)).map((i) => `,license/${i.name}=${i.count}`).join("");
}
