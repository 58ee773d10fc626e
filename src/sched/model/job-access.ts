/**
 * @module sched/model/job-access
 * Who may change a job, and the Slurm errors job commands answer with (pure). Shared by
 * job updates/cancels and step cancels.
 */
import type { Requester } from "./commands.ts";
import type { ControllerConfig, JobRecord } from "./types.ts";

export const JOB_ERRORS = {
  invalidJobId: { code: 2017, text: "Invalid job id specified" },
  alreadyDone: { code: 2021, text: "Job/step already completing or completed" },
  accessDenied: { code: 2002, text: "Access/permission denied" },
  notPending: { code: 2020, text: "Job is no longer pending execution" },
  disabled: { code: 2035, text: "Requested operation is presently disabled" },
  // ESLURM_JOB_PENDING: requeue of a job that has not run (oracle 22.05: `scontrol requeue <pending>`)
  pending: { code: 2024, text: "Job is pending execution" },
  notBatch: { code: 2041, text: "Only batch jobs are accepted or processed" },
  notRunning: { code: 2085, text: "Job is not running" },
  notSuspended: { code: 2087, text: "Job is not suspended" },
  // ESLURM_NOT_WHOLE_HET_JOB (slurm_errno.h; scancel exits with it mod 256: 60)
  notWholeHetJob: { code: 2108, text: "Operation not permitted on individual component of heterogeneous job" },
} as const;

export function canModify(job: JobRecord, by: Requester, config: ControllerConfig): boolean {
  return by.uid === 0 || by.uid === job.info.uid || config.operators.includes(by.user);
}
