/**
 * @module compat/pmix/job-info
 * What a node's PMIx server tells the PMIx library about a step (PMIx_server_register_nspace), as
 * data: the job-level facts Open MPI reads at MPI_Init (universe and job size, the node and proc
 * maps, this node's peers) and one array per rank (rank, app, local and node rank, node id, host).
 * Keys are PMIx's attribute strings (pmix_common.h); value types name PMIx's data types. The two
 * maps are the inputs PMIx_generate_regex / PMIx_generate_ppn turn into PMIx's own regex form
 * (`nodeListText`, `ppnText`). Pure: agent/pmix turns the entries into pmix_info_t arrays.
 */

export type PmixValue =
  | { type: "string"; value: string }
  | { type: "uint32"; value: number }
  | { type: "uint16"; value: number }
  | { type: "rank"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "info"; value: PmixEntry[] };

export interface PmixEntry {
  key: string;
  value: PmixValue;
}

/** A step as one node's PMIx server sees it. */
export interface PmixStep {
  /** The namespace: `slurm.pmix.JOB.STEP`, as Slurm's pmix plugin names it. */
  nspace: string;
  /** Node names of the step, in SLURM_NODEID order. */
  nodes: readonly string[];
  /** The global ranks each node runs (`ranksOfNode[i]` for node i), each list ascending. */
  ranksOfNode: ReadonlyArray<readonly number[]>;
  /** This node's index in `nodes`. */
  nodeIndex: number;
  /** The step's temporary directory for its tasks (PMIX_TMPDIR). */
  tmpDir: string;
}

/** Slurm's namespace name for a step (the oracle's PMIX_NAMESPACE=slurm.pmix.25.0). */
export const pmixNamespace = (jobId: number, stepId: number): string => `slurm.pmix.${jobId}.${stepId}`;

const str = (key: string, value: string): PmixEntry => ({ key, value: { type: "string", value } });
const u32 = (key: string, value: number): PmixEntry => ({ key, value: { type: "uint32", value } });
const u16 = (key: string, value: number): PmixEntry => ({ key, value: { type: "uint16", value } });
const rank = (key: string, value: number): PmixEntry => ({ key, value: { type: "rank", value } });

/** The input of PMIx_generate_regex: the node names, comma-separated. */
export const nodeListText = (step: PmixStep): string => step.nodes.join(",");

/** The input of PMIx_generate_ppn: each node's ranks comma-separated, nodes separated by ';'. */
export const ppnText = (step: PmixStep): string => step.ranksOfNode.map((r) => r.join(",")).join(";");

/** Why `step` cannot be served ("" = it can): every rank once, on a node that exists. */
export function stepProblem(step: PmixStep): string {
  if (step.nodes.length === 0 || step.nodes.length !== step.ranksOfNode.length) return "the step's node list and its rank map disagree";
  if (step.nodeIndex < 0 || step.nodeIndex >= step.nodes.length) return `node index ${step.nodeIndex} is not in the step`;
  const all = step.ranksOfNode.flat().sort((a, b) => a - b);
  if (all.some((r, i) => r !== i)) return "the step's ranks are not 0..N-1, each once";
  if ((step.ranksOfNode[step.nodeIndex] ?? []).length === 0) return "this node runs no task of the step";
  return "";
}

/**
 * The namespace's info array: job-level entries, then one PMIX_PROC_DATA array per rank of the
 * step (every node's, so that each rank knows where every other one runs). `nodeMap`/`procMap`
 * are the library's regexes of `nodeListText`/`ppnText`.
 */
export function namespaceInfo(step: PmixStep, maps: { nodeMap: string; procMap: string }): PmixEntry[] {
  const size = step.ranksOfNode.reduce((n, r) => n + r.length, 0);
  const local = step.ranksOfNode[step.nodeIndex] ?? [];
  if (size === 0 || local.length === 0) throw new Error("a PMIx namespace needs ranks on this node");
  const job: PmixEntry[] = [
    u32("pmix.univ.size", size), u32("pmix.job.size", size), u32("pmix.max.size", size), str("pmix.jobid", step.nspace),
    u32("pmix.num.nodes", step.nodes.length), str("pmix.nmap", maps.nodeMap), str("pmix.pmap", maps.procMap),
    str("pmix.lpeers", local.join(",")), u32("pmix.local.size", local.length), u32("pmix.node.size", local.length),
    str("pmix.tmpdir", step.tmpDir), str("pmix.nsdir", step.tmpDir),
  ];
  const procs: PmixEntry[] = [];
  step.ranksOfNode.forEach((ranks, nodeId) => {
    ranks.forEach((r, localRank) => {
      procs.push({ key: "pmix.pdata", value: { type: "info", value: [
        rank("pmix.rank", r), u32("pmix.appnum", 0), rank("pmix.apprank", r), rank("pmix.grank", r),
        u16("pmix.lrank", localRank), u16("pmix.nrank", localRank), u32("pmix.nodeid", nodeId), str("pmix.hname", step.nodes[nodeId] ?? ""),
      ] } });
    });
  });
  if (procs.length !== size) throw new Error("one proc array per rank");
  return [...job, ...procs];
}

/** Ranks per node from Slurm's vector mapping `(vector,(start,count,ppn),...)` (compat/pmi/mapping.ts), or a reason. */
export function ranksFromMapping(mapping: string, nodeCount: number): number[][] | string {
  const m = /^\(vector((?:,\(\d+,\d+,\d+\))+)\)$/.exec(mapping.trim());
  if (m === null) return `not a process mapping: ${mapping}`;
  const out: number[][] = Array.from({ length: nodeCount }, () => []);
  let next = 0;
  for (const t of (m[1] ?? "").matchAll(/\((\d+),(\d+),(\d+)\)/g)) {
    const [start, count, ppn] = [Number(t[1]), Number(t[2]), Number(t[3])];
    for (let n = start; n < start + count; n++) {
      const ranks = out[n];
      if (ranks === undefined) return `the mapping names node ${n} of ${nodeCount}`;
      for (let k = 0; k < ppn; k++) ranks.push(next++);
    }
  }
  return out;
}
