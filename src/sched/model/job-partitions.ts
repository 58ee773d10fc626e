/**
 * @module sched/model/job-partitions
 * A job submitted to several partitions (`-p a,b`): Slurm keeps the list as the job's
 * Partition= while it pends and starts it in whichever listed partition can run it first;
 * once started, Partition= is that one partition (oracle 22.05: `-p gpu,debug -N2` runs
 * with Partition=gpu, `-p debug,gpu -N4` with Partition=debug). The text is kept as given
 * for a job never tested at submission (`--hold`: "gpu,,debug", "gpu," stay), and is
 * rebuilt with the partition that passed the submit-time node test first otherwise
 * (`-p gpu,debug -N3` on a 2-node gpu partition shows Partition=debug,gpu).
 * Pure; no imports from the rest of the model, so every layer may use it.
 */

/** The distinct partition names in a job's Partition= text, in listed order (empty entries dropped). */
export function jobPartitions(text: string): string[] {
  if (!text.includes(",")) return text === "" ? [] : [text];
  const out: string[] = [];
  for (const name of text.split(",")) if (name !== "" && !out.includes(name)) out.push(name);
  return out;
}

/** Whether the Partition= text names more than one partition (a pending multi-partition job). */
export const isPartitionList = (text: string): boolean => jobPartitions(text).length > 1;

/** Whether a job's Partition= text names any of `names` (squeue/scancel/sacct `-p a,b` filters). */
export function namesAnyPartition(text: string, names: readonly string[]): boolean {
  if (!text.includes(",")) return names.includes(text);
  return jobPartitions(text).some((p) => names.includes(p));
}

/** The Partition= text with `first` moved to the front, the other listed partitions after it in their order. */
export function partitionListWithFirst(text: string, first: string): string {
  return [first, ...jobPartitions(text).filter((p) => p !== first)].join(",");
}

/**
 * The order a multi-partition job tries its partitions in: higher PriorityTier first (Slurm's
 * queue ranks each job-partition pair by its partition's tier), the listed order between equals.
 */
export function partitionsByTier(names: readonly string[], tierOf: (name: string) => number): string[] {
  if (names.length < 2) return [...names];
  return names.map((n, i) => ({ n, i, t: tierOf(n) })).sort((a, b) => b.t - a.t || a.i - b.i).map((x) => x.n);
}
