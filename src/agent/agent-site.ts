/**
 * @module agent/agent-site
 * Small facts the agent's pieces share: the devices a share may open, the container site of
 * this node, and the Prolog/Epilog facts of a job (as the controller sent it, or of a step).
 */
import { sharingGpusOf } from "../compat/gres-generic.ts";
import { toPlain } from "../lib/to-plain.ts";
import type { RunPrologRequest, RunTasksRequest } from "../net/gen/spur/v1/agent_pb.ts";
import type { AgentDeps } from "./agent-api.ts";
import { spoolTag } from "./containment.ts";
import type { JobFacts } from "./prolog.ts";

/** A share's whole GPUs and the GPUs its shards or MPS sit on: the devices its processes may open. */
export function deviceGpus(share: { gpuIndices: readonly number[]; gres?: string | undefined }): number[] {
  return [...new Set([...share.gpuIndices, ...sharingGpusOf(share.gres)])].sort((a, b) => a - b);
}

export function containerSite(deps: AgentDeps) {
  return {
    runtime: deps.container?.runtime ?? "", cdiSpecDirs: deps.container?.cdiSpecDirs ?? [], spool: deps.spool, tag: spoolTag(deps.spool), gpuFiles: deps.gpuFiles ?? [],
  };
}

/** The Prolog/Epilog facts of a job the controller sent. */
export function jobFacts(nodeName: string, info: RunPrologRequest["job"], clusterName: string): JobFacts | undefined {
  const job = toPlain(info);
  if (job === undefined) return undefined;
  const share = job.alloc.find((a) => a.node === nodeName);
  return {
    jobId: job.jobId, user: job.user, uid: job.uid, gid: job.gid, partition: job.partition, nodelist: job.nodelist, account: job.account,
    name: job.name, clusterName, node: nodeName, gpuIndices: [...(share?.gpuIndices ?? [])], workDir: job.workDir,
  };
}

/** The Prolog's facts for a step's job, from the step request and its tasks' SLURM_* variables. */
export function stepFacts(nodeName: string, req: RunTasksRequest): JobFacts {
  const env = req.tasks[0]?.env ?? req.env;
  return {
    jobId: req.jobId, user: req.user, uid: req.uid, gid: req.gid, partition: env.SLURM_JOB_PARTITION ?? "", nodelist: env.SLURM_JOB_NODELIST ?? nodeName,
    account: env.SLURM_JOB_ACCOUNT ?? "", name: env.SLURM_JOB_NAME ?? "", clusterName: env.SLURM_CLUSTER_NAME ?? "", node: nodeName,
    gpuIndices: [...(req.alloc?.gpuIndices ?? [])], workDir: req.workDir,
  };
}
