/**
 * @module compat/pmi/mapping
 * PMI_process_mapping, the job attribute MPICH reads to learn which ranks share a node, in
 * Slurm's vector format: `(vector,(start,count,ppn),...)`, each triple saying that `ppn`
 * consecutive ranks sit on each of the `count` nodes from node `start` on, the triples taken in
 * rank order. Facts from the Slurm 22.05 oracle: 2 nodes x 2 tasks block is `(vector,(0,2,2))`,
 * cyclic is `(vector,(0,2,1),(0,2,1))` (no folding of repeated triples). Pure.
 */

/**
 * The mapping of a step whose rank r runs on node `nodeOfRank[r]` (node indexes as SLURM_NODEID).
 * Runs of consecutive ranks on one node are merged into triples while the node goes up by one
 * and the run length stays the same.
 */
export function processMapping(nodeOfRank: readonly number[]): string {
  const runs: Array<{ node: number; ranks: number }> = [];
  for (const node of nodeOfRank) {
    const last = runs.at(-1);
    if (last !== undefined && last.node === node) last.ranks += 1;
    else runs.push({ node, ranks: 1 });
  }
  const triples: Array<{ start: number; count: number; ppn: number }> = [];
  for (const run of runs) {
    const last = triples.at(-1);
    if (last !== undefined && last.ppn === run.ranks && last.start + last.count === run.node) last.count += 1;
    else triples.push({ start: run.node, count: 1, ppn: run.ranks });
  }
  return `(vector,${triples.map((t) => `(${t.start},${t.count},${t.ppn})`).join(",")})`;
}

/** The node index of every rank from the ranks each node runs (`ranksOfNode[i]`: node i's global ranks). */
export function nodeOfRanks(ranksOfNode: ReadonlyArray<readonly number[]>): number[] {
  const size = ranksOfNode.reduce((n, r) => n + r.length, 0);
  const out = new Array<number>(size).fill(0);
  ranksOfNode.forEach((ranks, node) => {
    for (const r of ranks) out[r] = node;
  });
  return out;
}
