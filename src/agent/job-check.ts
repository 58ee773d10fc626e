/**
 * @module agent/job-check
 * Whether a step (srun) or a file copy (sbcast) may run here for a job: the claim checked by
 * step-check.ts against this node's own launch record (srun inside a batch script: no round
 * trip) or else the controller's record of the job. Failure policy: no controller answering
 * (every replica tried once) refuses, with a message saying so.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { RunTasksRequest } from "../net/gen/spur/v1/agent_pb.ts";
import type { JobInfo } from "../net/gen/spur/v1/types_pb.ts";
import type { ControllerLink } from "./controller-link.ts";
import { jobDir, type LaunchFile, readJson } from "./spool.ts";
import { checkStepClaim, type JobRecordView } from "./step-check.ts";

export interface JobChecks {
  /** "" when the step may run here, else why not; with the controller's record when it was asked. */
  verifyStep(req: RunTasksRequest): Promise<{ why: string; job?: JobInfo }>;
  /** sbcast: may `uid` (root: anyone's) write files for job `jobId` here? The job owner's uid, or why not. */
  verifyJob(jobId: number, uid: number): Promise<{ why: string; owner: number }>;
}

export function createJobChecks(spool: string, nodeName: string, link: Pick<ControllerLink, "ctl" | "failover" | "replicas">): JobChecks {
  /** The controller's record of an srun step's job, for checkStepClaim; undefined when no controller answers. */
  async function fetchJob(jobId: number): Promise<JobInfo | undefined | "unreachable"> {
    for (let attempt = 0; attempt <= link.replicas(); attempt++) {
      try {
        const r = await link.ctl().listJobs({ jobIds: [jobId], includeFinished: true }, { timeoutMs: 5000 });
        return r.jobs.find((j) => j.jobId === jobId);
      } catch (error) {
        link.failover(error);
      }
    }
    return "unreachable";
  }

  /** The job as this node's own batch launch recorded it (root's launch.json), while its script runs here. */
  function localJob(jobId: number): JobRecordView | undefined {
    const dir = jobDir(spool, jobId);
    const launch = readJson<LaunchFile>(join(dir, "launch.json"));
    if (launch === undefined || launch.share === undefined || existsSync(join(dir, "status.json"))) return undefined;
    return { jobId, uid: launch.uid, state: "RUNNING", alloc: [{ node: nodeName, ...launch.share }] };
  }

  async function verifyStep(req: RunTasksRequest): Promise<{ why: string; job?: JobInfo }> {
    const alloc = req.alloc;
    const claimOf = (jobUid: number | undefined) => ({
      jobId: req.jobId, uid: req.uid === 0 && jobUid !== undefined ? jobUid : req.uid, node: nodeName,
      cpus: alloc?.cpus ?? 0, memMib: alloc?.memMib ?? 0, gpuIndices: alloc?.gpuIndices ?? [], cpuIds: alloc?.cpuIds,
    });
    // srun inside a batch script (the common case) is checked here, without a round trip to the controller.
    const local = localJob(req.jobId);
    if (local !== undefined && checkStepClaim(claimOf(local.uid), local) === "") return { why: "" };
    const job = await fetchJob(req.jobId);
    if (job === "unreachable") return { why: "the controller cannot be reached to check the step's job" };
    const claim = claimOf(job?.uid);
    const view: JobRecordView | undefined = job === undefined ? undefined : { jobId: job.jobId, uid: job.uid, state: job.state, alloc: job.alloc };
    return { why: checkStepClaim(claim, view), ...(job ? { job } : {}) };
  }

  async function verifyJob(jobId: number, uid: number): Promise<{ why: string; owner: number }> {
    const found = localJob(jobId) ?? (await fetchJob(jobId));
    if (found === "unreachable") return { why: "the controller cannot be reached to check the job", owner: -1 };
    const view = found === undefined ? undefined : { jobId: found.jobId, uid: found.uid, state: found.state, alloc: found.alloc };
    const claim = { jobId, uid: uid === 0 && view !== undefined ? view.uid : uid, node: nodeName, cpus: 0, memMib: 0, gpuIndices: [] };
    return { why: checkStepClaim(claim, view), owner: view?.uid ?? -1 };
  }

  return { verifyStep, verifyJob };
}
