/**
 * @module compat/het-step
 * A heterogeneous step (`srun A : B`) as its tasks see it, from each component's step as the
 * controller created it. Facts from the 22.05 oracle (`srun -N2 -n2 CMD : -n1 CMD`, outside an
 * allocation): the tasks' ranks run on over the components (SLURM_PROCID 0-1, then 2), and
 * every task sees the whole step (SLURM_NTASKS=3, SLURM_STEP_NODELIST=n[1-3], SLURM_NODEID 0-2,
 * SLURM_STEP_TASKS_PER_NODE=1(x3)) and the whole job (SLURM_JOB_ID = the leader's,
 * SLURM_JOB_NODELIST=n[1-3], SLURM_JOB_NUM_NODES=3, SLURM_JOB_CPUS_PER_NODE=1(x3)); each
 * component's job variables come under _HET_GROUP_n (22.05 spells them _PACK_GROUP_n: both are
 * set, as for batch scripts), with SLURM_HET_SIZE. Inside an ordinary allocation every
 * component is a step of the same job and no per-component variables are set.
 */
import type { Plain } from "../lib/plain.ts";
import type { JobInfo, NodeAlloc } from "../net/gen/spur/v1/types_pb.ts";
import { assert } from "../lib/assert.ts";
import { compressHostlist } from "./hostlist.ts";
import { hetBatchEnv } from "./het-env.ts";

/** What the controller answered for one component's step: its job and the step's node shares. */
export interface ComponentStep {
  job: Plain<JobInfo>;
  shares: readonly Pick<Plain<NodeAlloc>, "node" | "tasks">[];
}

export interface HetStepPlace {
  taskOffset: number;
  ntasks: number;
  nodeNames: string[];
  tasksPerNode: number[];
  nodelist: string;
  job: Plain<JobInfo>;
}

/** Each component's place in the whole step, in component order. */
export function hetStepPlaces(components: readonly ComponentStep[]): HetStepPlace[] {
  assert(components.length > 0, "a heterogeneous step has components");
  const nodeNames: string[] = [];
  const tasksPerNode: number[] = [];
  for (const c of components) {
    for (const share of c.shares) {
      const at = nodeNames.indexOf(share.node);
      if (at >= 0) tasksPerNode[at] = (tasksPerNode[at] ?? 0) + share.tasks;
      else {
        nodeNames.push(share.node);
        tasksPerNode.push(share.tasks);
      }
    }
  }
  const ntasks = tasksPerNode.reduce((a, b) => a + b, 0);
  const job = wholeJob(components.map((c) => c.job), nodeNames);
  const nodelist = compressHostlist(nodeNames);
  let taskOffset = 0;
  return components.map((c) => {
    const place = { taskOffset, ntasks, nodeNames, tasksPerNode, nodelist, job };
    taskOffset += c.shares.reduce((a, s) => a + s.tasks, 0);
    return place;
  });
}

/**
 * The job as a heterogeneous step's tasks see it: the leader, with the nodes of the step (oracle:
 * in a het job on n[1-2] and n3, `srun -n1 CMD : -n1 CMD` gives SLURM_JOB_NODELIST=n[1,3] and
 * SLURM_JOB_NUM_NODES=2). Every component in one job (an ordinary allocation): that job as it is.
 */
function wholeJob(jobs: readonly Plain<JobInfo>[], stepNodes: readonly string[]): Plain<JobInfo> {
  const leader = jobs[0] as Plain<JobInfo>;
  const distinct = jobs.filter((j, i) => jobs.findIndex((k) => k.jobId === j.jobId) === i);
  if (distinct.length === 1) return leader;
  // ...but SLURM_JOB_CPUS_PER_NODE stays every component's (the same oracle run: 1(x3))
  const alloc = distinct.flatMap((j) => j.alloc);
  const names = alloc.map((a) => a.node).filter((n) => stepNodes.includes(n));
  return { ...leader, alloc, nodelist: compressHostlist(names), numNodes: names.length, numCpus: alloc.reduce((n, a) => n + a.cpus, 0) };
}

/** Names a het step gives per component in 22.05 (the rest of a batch script's copies are not set for a step). */
const STEP_GROUP_VARS = new Set(["SLURM_JOB_ACCOUNT", "SLURM_JOB_CPUS_PER_NODE", "SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_JOB_PARTITION", "SLURM_JOB_QOS"]);

/**
 * The per-component variables of a heterogeneous step's tasks (none when every component is a
 * step of the same job), with SLURM_HET_SIZE and 22.05's SLURM_PACK_SIZE.
 */
export function hetStepEnv(jobs: readonly Plain<JobInfo>[]): Record<string, string> {
  if (new Set(jobs.map((j) => j.jobId)).size < 2) return {};
  const all = hetBatchEnv(jobs);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(all)) {
    const base = name.replace(/_(?:HET|PACK)_GROUP_\d+$/, "");
    if (base === name ? name === "SLURM_HET_SIZE" || name === "SLURM_PACK_SIZE" : STEP_GROUP_VARS.has(base)) out[name] = value;
  }
  return out;
}

/**
 * srun A : B inside an ordinary allocation: component n runs on the next `wants[n]` nodes of the
 * job, after those of the earlier components (oracle: `-n2 CMD : -n1 CMD` in a 4-node job runs on
 * n[1-2] and n3); Slurm's error text when the job runs out of nodes.
 */
export function hetStepNodeSlices(jobNodes: readonly string[], wants: readonly number[]): string[][] | string {
  const slices: string[][] = [];
  let used = 0;
  for (const want of wants) {
    if (used + want > jobNodes.length) {
      return `Allocation failure of ${want} nodes: job size of ${jobNodes.length}, already allocated ${used} nodes to previous components.`;
    }
    slices.push(jobNodes.slice(used, used + want));
    used += want;
  }
  return slices;
}
