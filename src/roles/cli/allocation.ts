/**
 * @module roles/cli/allocation
 * Getting an interactive allocation for srun (outside a job) and salloc:
 * submit with interactive=true, say "queued and waiting" when it does not start
 * at once (as Slurm does), wait until it runs, and end it when the caller is done.
 */
import type { Plain } from "../../lib/plain.ts";
import type { JobSpec, JobInfo } from "../../net/gen/spur/v1/types_pb.ts";
import { call, resolveControllerUrl } from "./port.ts";
import { RpcError } from "../../net/ctl-port.ts";
import { withDefaults } from "../../lib/sparse.ts";
import { emptyJobInfo } from "../../sched/model/records.ts";

export const ctlUrl = (): string => resolveControllerUrl();

/**
 * `immediateSec` (-I/--immediate): give up when the job has not started within that
 * many seconds: the job is cancelled and the caller gets "Requested nodes are busy".
 */
export async function allocate(prog: string, spec: Plain<JobSpec>, quiet: boolean, immediateSec?: number, het: Plain<JobSpec>[] = []): Promise<Plain<JobInfo>> {
  const url = ctlUrl();
  // a heterogeneous allocation (salloc A : B): every component is interactive; they start together
  const hetComponents = het.map((h) => ({ ...h, interactive: true }));
  const submitted = await call<{ jobId: number; warnings?: string[] }>(url, "Submit", { spec: { ...spec, interactive: true }, ...(het.length > 0 ? { hetComponents } : {}) });
  const jobId = submitted.jobId;
  if (!quiet) for (const w of submitted.warnings ?? []) process.stderr.write(`${prog}: ${w}\n`);
  const giveUpAt = immediateSec === undefined ? Number.POSITIVE_INFINITY : Date.now() + Math.max(1, immediateSec) * 1000;
  let announced = false;
  // srun killed while it waits (timeout(1), a terminal): the pending job goes, as Slurm's srun says
  const onTerm = (): void => {
    if (prog === "srun") process.stderr.write(`srun: Job allocation ${jobId} has been revoked\nsrun: Force Terminated JobId=${jobId}\n`);
    void cancelAllocation(jobId).finally(() => process.exit(143));
  };
  process.once("SIGTERM", onTerm);
  try {
    return await waitForStart(prog, url, jobId, quiet, giveUpAt, announced);
  } finally {
    process.off("SIGTERM", onTerm);
  }
}

async function waitForStart(prog: string, url: string, jobId: number, quiet: boolean, giveUpAt: number, announced: boolean): Promise<Plain<JobInfo>> {
  for (;;) {
    const waitMs = Math.max(1, Math.min(announced ? 30_000 : 1000, giveUpAt - Date.now()));
    const { job } = await call<{ job: Plain<JobInfo> }>(url, "WaitJob", { jobId, untilStates: ["RUNNING"], timeoutMs: waitMs });
    if (job.state === "RUNNING") {
      if (announced && !quiet) process.stderr.write(`${prog}: job ${jobId} has been allocated resources\n`);
      return job;
    }
    if (job.state !== "PENDING") throw new RpcError("ended", `Job allocation ${jobId} has been revoked.`);
    if (!announced) {
      // salloc names the pending allocation first; srun does so only when verbose (oracle 22.05)
      if (!quiet) process.stderr.write(`${prog === "salloc" ? `salloc: Pending job allocation ${jobId}\n` : ""}${prog}: job ${jobId} queued and waiting for resources\n`);
      announced = true;
    }
    if (Date.now() >= giveUpAt) {
      await cancelAllocation(jobId);
      throw new RpcError("busy", "Requested nodes are busy");
    }
  }
}

export async function release(jobId: number, exitCode: number, exitSignal = 0): Promise<void> {
  await call(ctlUrl(), "JobDone", { jobId, exitCode, exitSignal }).catch(() => undefined);
}

export async function cancelAllocation(jobId: number): Promise<void> {
  await call(ctlUrl(), "Cancel", { filter: { jobIds: [String(jobId)] }, signal: 0 }).catch(() => undefined);
}

/** Every component of heterogeneous job `leaderId` as the controller shows it now, in offset order. */
export async function hetComponentsOf(leaderId: number): Promise<Plain<JobInfo>[]> {
  // the controller leaves fields at their defaults out of a listing
  const { jobs } = await call<{ jobs: Partial<Plain<JobInfo>>[] }>(ctlUrl(), "ListJobs", { jobIds: [leaderId] });
  const defaults = emptyJobInfo();
  return jobs.map((j) => withDefaults(j, defaults)).filter((j) => j.hetJobId === leaderId).sort((a, b) => (a.hetJobOffset ?? 0) - (b.hetJobOffset ?? 0));
}

/** How long one watch call waits at the controller; after a failed call the watch waits this long before the next. */
const WATCH_CALL_MS = 30_000;
const WATCH_RETRY_MS = 5_000;

/**
 * Watch allocation `jobId` while salloc's command runs: `onRevoked` is called once if the job ends
 * without salloc (scancel, time limit, node failure), as Slurm's salloc hears of it. One long-poll
 * call at a time (WaitJob); returns the function that stops the watch.
 */
export function watchAllocation(jobId: number, onRevoked: () => void): () => void {
  let stopped = false;
  void (async () => {
    while (!stopped) {
      try {
        const { job } = await call<{ job: Plain<JobInfo> }>(ctlUrl(), "WaitJob", { jobId, untilStates: ["COMPLETING"], timeoutMs: WATCH_CALL_MS });
        if (stopped) return;
        if (job.state !== "RUNNING") return onRevoked();
      } catch {
        await new Promise((resolve) => setTimeout(resolve, WATCH_RETRY_MS).unref?.());
      }
    }
  })();
  return () => {
    stopped = true;
  };
}
