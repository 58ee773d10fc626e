/**
 * @module agent/step-check
 * An srun task request proves only its caller's uid (socket or token); its job
 * id and its share of this node (CPUs, CPU ids, memory, GPUs) are what srun says.
 * Root acts on them (the step's cgroup, the Prolog with the job's facts), so
 * spurd checks them against the controller's record of the job first, as
 * slurmd checks the job credential slurmctld signed: the job must be the
 * caller's, running, allocated here, and the step must ask for no more of this
 * node than the job holds. Pure: the caller fetches the job.
 */
import { parseCpuList } from "../lib/cpu-list.ts";

export interface StepClaim {
  jobId: number;
  uid: number;
  node: string;
  cpus: number;
  memMib: number;
  gpuIndices: readonly number[];
  cpuIds?: string | undefined;
}

export interface JobRecordView {
  jobId: number;
  uid: number;
  state: string;
  alloc: ReadonlyArray<{ node: string; cpus: number; memMib: number; gpuIndices: readonly number[]; cpuIds?: string | undefined }>;
}

/** "" when the request holds, else why not (for "Invalid job credential: ..."). */
export function checkStepClaim(claim: StepClaim, job: JobRecordView | undefined): string {
  if (job === undefined || job.jobId !== claim.jobId) return `job ${claim.jobId} is unknown`;
  if (job.uid !== claim.uid) return `job ${claim.jobId} is not the caller's`;
  if (job.state !== "RUNNING") return `job ${claim.jobId} is ${job.state}, not RUNNING`;
  const share = job.alloc.find((a) => a.node === claim.node);
  if (share === undefined) return `job ${claim.jobId} has no allocation on ${claim.node}`;
  if (claim.cpus > share.cpus) return `the step asks for ${claim.cpus} CPUs, the job holds ${share.cpus} on ${claim.node}`;
  if (share.memMib > 0 && claim.memMib > share.memMib) return `the step asks for ${claim.memMib} MiB, the job holds ${share.memMib} on ${claim.node}`;
  const gpus = new Set(share.gpuIndices);
  const foreign = claim.gpuIndices.filter((g) => !gpus.has(g));
  if (foreign.length > 0) return `GPUs ${foreign.join(",")} on ${claim.node} are not the job's`;
  if (claim.cpuIds !== undefined && claim.cpuIds !== "") {
    const held = new Set(parseCpuList(share.cpuIds ?? ""));
    const other = parseCpuList(claim.cpuIds).filter((id) => !held.has(id));
    if (share.cpuIds === undefined || share.cpuIds === "" || other.length > 0) return `CPU ids ${claim.cpuIds} on ${claim.node} are not the job's`;
  }
  return "";
}
