/**
 * @module roles/cli/allocation
 * Getting an interactive allocation for srun (outside a job) and salloc:
 * submit with interactive=true, say "queued and waiting" when it does not start
 * at once (as Slurm does), wait until it runs, and end it when the caller is done.
 */
import type { Plain } from "../../lib/plain.ts";
import type { JobSpec, JobInfo } from "../../net/gen/spur/v1/types_pb.ts";
import { call, resolveControllerUrl } from "./port.ts";
import { RpcError } from "../../cli/io.ts";

export const ctlUrl = (): string => resolveControllerUrl();

export async function allocate(prog: string, spec: Plain<JobSpec>, quiet: boolean): Promise<Plain<JobInfo>> {
  const url = ctlUrl();
  const submitted = await call<{ jobId: number }>(url, "Submit", { spec: { ...spec, interactive: true } });
  const jobId = submitted.jobId;
  let announced = false;
  for (;;) {
    const { job } = await call<{ job: Plain<JobInfo> }>(url, "WaitJob", { jobId, untilStates: ["RUNNING"], timeoutMs: announced ? 30_000 : 1000 });
    if (job.state === "RUNNING") {
      if (announced && !quiet) process.stderr.write(`${prog}: job ${jobId} has been allocated resources\n`);
      return job;
    }
    if (job.state !== "PENDING") throw new RpcError("ended", `Job allocation ${jobId} has been revoked.`);
    if (!announced) {
      if (!quiet) process.stderr.write(`${prog}: job ${jobId} queued and waiting for resources\n`);
      announced = true;
    }
  }
}

export async function release(jobId: number, exitCode: number, exitSignal = 0): Promise<void> {
  await call(ctlUrl(), "JobDone", { jobId, exitCode, exitSignal }).catch(() => undefined);
}

export async function cancelAllocation(jobId: number): Promise<void> {
  await call(ctlUrl(), "Cancel", { filter: { jobIds: [String(jobId)] }, signal: 0 }).catch(() => undefined);
}
