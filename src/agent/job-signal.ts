/**
 * @module agent/job-signal
 * Signals to a job on this node: scancel (SIGTERM, SIGCONT for a suspended job, SIGKILL after
 * KillWait on the injected clock), scancel -s to the batch script, the steps, or every process
 * of the job (its cgroup, double-forked ones too, as Slurm). Failure policy: a process already
 * gone is not an error.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../lib/clock.ts";
import type { SignalJobRequest } from "../net/gen/spur/v1/agent_pb.ts";
import { jobFacts } from "./agent-site.ts";
import { listPids, signalPids } from "./cgroup/fs.ts";
import type { NodeProlog } from "./node-prolog.ts";
import { isAlive, jobDir, type LaunchFile, processMatches, readJson, readPid, writeJson } from "./spool.ts";
import { killJobSteps } from "./tasks.ts";

/** Right after spawn the child may not have exec'd yet, so its command line is still ours. */
const EXEC_GRACE_MS = 10_000;

/**
 * Whether `pid` is this job's stepd: alive, and either its command line names stepd and the
 * job folder, or it was started moments ago (before exec the command line is the parent's).
 */
export function isOurStepd(dir: string, pid: number, nowMs: number): boolean {
  if (!isAlive(pid)) return false;
  if (processMatches(pid, ["stepd", dir])) return true;
  try {
    return nowMs - statSync(join(dir, "stepd.pid")).mtimeMs < EXEC_GRACE_MS;
  } catch {
    return false;
  }
}

export interface JobSignaller {
  /** True when the job's batch script runs here (scancel of a step: whether its job is here). */
  signalJob(req: SignalJobRequest): boolean;
  /** Cancel jobs the controller says this node must not run. */
  killReported(jobIds: number[]): void;
}

export function createJobSignaller(spool: string, nodeName: string, clock: Clock, nodeProlog: NodeProlog): JobSignaller {
  function signalJob(req: SignalJobRequest): boolean {
    const dir = jobDir(spool, req.jobId);
    const hasBatch = existsSync(join(dir, "launch.json"));
    if (req.stepId >= 0) {
      // scancel J.S: that step's tasks only; a cancel kills them at once (Slurm's step kill).
      killJobSteps(req.jobId, req.signal === 0 ? "SIGKILL" : req.signal, req.stepId);
      return hasBatch;
    }
    if (req.signal === 0) {
      if (hasBatch) {
        writeJson(join(dir, "end-reason.json"), { reason: req.reason || "CANCELLED" });
        const pid = readPid(dir, "stepd.pid");
        if (pid !== undefined && isOurStepd(dir, pid, clock.now())) process.kill(pid, "SIGTERM");
      }
      killJobSteps(req.jobId, "SIGTERM");
      // A suspended (SIGSTOPped) job must run to act on SIGTERM, as Slurm sends SIGCONT too.
      signalAll(dir, req.jobId, "SIGCONT");
      clock.setTimeout(() => killJobSteps(req.jobId, "SIGKILL"), Math.max(1, req.killWaitSec) * 1000, { unref: true });
      // No batch script here: this node's Epilog (its Prolog ran at the first step) once the steps are gone.
      if (!hasBatch) void nodeProlog.ended(req.jobId, (Math.max(1, req.killWaitSec) + 2) * 1000, jobFacts(nodeName, req.job, req.clusterName));
      return true;
    }
    const sig = req.signal;
    if (req.stepsOnly) {
      killJobSteps(req.jobId, sig as unknown as NodeJS.Signals);
      return hasBatch;
    }
    if (req.batchOnly) {
      const child = readPid(dir, "child.pid");
      try {
        if (child !== undefined) process.kill(child, sig);
      } catch {
        /* already gone */
      }
      return hasBatch;
    }
    signalAll(dir, req.jobId, sig);
    return hasBatch;
  }

  /** Every process of the job here: its cgroup (double-forked ones too, as Slurm) or the batch group, and its steps. */
  function signalAll(dir: string, jobId: number, sig: number | NodeJS.Signals): void {
    const child = readPid(dir, "child.pid");
    const cg = existsSync(join(dir, "launch.json")) ? readJson<LaunchFile>(join(dir, "launch.json"))?.cgroup : undefined;
    if (cg !== undefined) {
      signalPids(listPids(cg.trackDir), sig);
    } else if (child !== undefined) {
      try {
        process.kill(-child, sig);
      } catch {
        /* already gone */
      }
    }
    killJobSteps(jobId, sig as NodeJS.Signals);
  }

  return {
    signalJob,
    killReported(ids) {
      for (const jobId of ids) signalJob({ jobId, signal: 0, reason: "CANCELLED", killWaitSec: 1, batchOnly: false, stepsOnly: false, stepId: -1 } as SignalJobRequest);
    },
  };
}
