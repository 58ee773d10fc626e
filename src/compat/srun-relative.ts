/**
 * @module compat/srun-relative
 * srun -r/--relative=N inside an allocation: the step runs on the allocation's nodes from
 * node N on. Facts from the 22.05 oracle (a 3-node allocation): `-r1 -n1` runs on n2 (node id
 * 0 of the step), `-r1 -N2` on n[2-3]; `-r2 -N2` is refused with "--relative and --nodes option
 * incompatible with count of allocated nodes (2+2>3)", and a node count that came from the
 * allocation (no -N) names SLURM_JOB_NUM_NODES instead ("(1+3>3)" for a bare `-r1`); outside an
 * allocation the option is fatal.
 */

/** srun's fatal text for --relative when srun makes its own allocation. */
export const RELATIVE_OUTSIDE = "--relative option invalid for job allocation request";

/**
 * The step's nodes: `count` nodes of `jobNodes` from index `relative`, or Slurm's error text.
 * `countFromCli`: the count came from -N on the command line (else from the allocation).
 */
export function relativeNodes(jobNodes: readonly string[], relative: number, count: number, countFromCli: boolean): string[] | string {
  if (relative + count > jobNodes.length) {
    const what = countFromCli ? "--nodes" : "SLURM_JOB_NUM_NODES";
    return `--relative and ${what} option incompatible with count of allocated nodes (${relative}+${count}>${jobNodes.length})`;
  }
  return jobNodes.slice(relative, relative + count);
}
