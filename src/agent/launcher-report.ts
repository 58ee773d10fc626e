/**
 * @module agent/launcher-report
 * Task exits reported to srun's own listener (RunTasksRequest.launcher, what
 * the tasks see as SLURM_SRUN_COMM_HOST:SLURM_SRUN_COMM_PORT), as slurmstepd
 * reports them to srun's message port. srun takes each task's exit status from
 * these reports. Failure policy: a report that cannot be delivered within
 * REPORT_TIMEOUT_MS is dropped (srun then falls back to the exit carried on
 * the output stream, which waits for the report); it never fails the step.
 */
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Launcher, type RunTasksRequest } from "../net/gen/spur/v1/agent_pb.ts";

/** Sends one task's exit; resolves once srun has it, or the report was given up (never rejects). */
export type ExitReporter = (taskId: number, exitCode: number, exitSignal: number) => Promise<void>;

/** How long one report may take before it is given up (the exit frame waits for it). */
const REPORT_TIMEOUT_MS = 2000;

/** A reporter for the step of `req` on `node`; a no-op when srun named no listener. */
export function exitReporter(req: RunTasksRequest, node: string): ExitReporter {
  if (req.launcher === "") return () => Promise.resolve();
  const client = createClient(Launcher, createConnectTransport({ baseUrl: `http://${req.launcher}`, httpVersion: "1.1" }));
  return (taskId, exitCode, exitSignal) =>
    client
      .taskExit(
        { jobId: req.jobId, stepId: req.stepId, node, taskIds: [taskId], exitCode, exitSignal, token: req.launcherToken },
        { timeoutMs: REPORT_TIMEOUT_MS },
      )
      .then(
        () => undefined,
        () => undefined,
      );
}
