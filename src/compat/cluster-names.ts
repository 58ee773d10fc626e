/**
 * @module compat/cluster-names
 * -M/--clusters checked against the clusters the site knows, as Slurm 22.05's clients check
 * them against the accounting database (oracle, sbatch and squeue): each unknown name is an
 * error line, "No cluster 'X' known by database."; when no name is left the command stops
 * with "'<list as typed>' can't be reached now, ..." (exit 1); names match without regard to
 * case (-M ORACLE is cluster oracle) and "all" names every cluster. Pure.
 */

export interface ClusterCheck {
  /** Error lines to print (without the "<cmd>: error: " prefix). */
  errors: string[];
  /** False: nothing reachable, the command stops (exit 1). */
  reachable: boolean;
}

export function checkClusters(typed: string, known: readonly string[]): ClusterCheck {
  const names = typed.split(",").filter((n) => n !== "");
  if (names.some((n) => n.toLowerCase() === "all")) return { errors: [], reachable: true };
  const lower = new Set(known.map((k) => k.toLowerCase()));
  const unknown = names.filter((n) => !lower.has(n.toLowerCase()));
  const errors = unknown.map((n) => `No cluster '${n}' known by database.`);
  if (unknown.length < names.length) return { errors, reachable: true };
  const reach = `'${typed}' can't be reached now, or it is an invalid entry for --cluster.  Use 'sacctmgr list clusters' to see available clusters.`;
  return { errors: [...errors, reach], reachable: false };
}
