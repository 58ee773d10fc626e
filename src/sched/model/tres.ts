/**
 * @module sched/model/tres
 * Trackable-resource strings as Slurm prints them (TRES=, AllocTRES, ReqTRES):
 * "cpu=4,mem=1000M,node=1,billing=4,gres/gpu=2". Memory is shown in the largest
 * unit that divides it evenly (M, G, T), as Slurm does.
 */

export function memText(mib: number): string {
  if (mib > 0 && mib % (1024 * 1024) === 0) return `${mib / (1024 * 1024)}T`;
  if (mib > 0 && mib % 1024 === 0) return `${mib / 1024}G`;
  return `${mib}M`;
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
