/**
 * @module agent/step-stats
 * What sstat asks a node: the usage so far of the job's running steps here,
 * read live from their cgroups (memory high-water mark, CPU times) plus the
 * samples taken so far (stepd writes the batch step's to samples.json; srun
 * steps' are in this process) and one taken now: as Slurm's stepd polls on an
 * sstat request, a step younger than the sampling period still shows its RSS.
 */
import { join } from "node:path";
import type { Plain } from "../lib/plain.ts";
import type { StepInfo } from "../net/gen/spur/v1/types_pb.ts";
import { emptyStepInfo } from "../sched/model/records.ts";
import { jobDir, listJobIds, readJson, type LaunchFile, type StatusFile } from "./spool.ts";
import { emptySampler, nodeUsage, readCounters, sample, type Sampler } from "./cgroup/usage.ts";
import { runningSteps } from "./tasks.ts";

const BATCH_STEP_ID = -5;

/** Running steps of `jobId` (0 = every job) here; `stepId` -1 = every step. */
export function liveSteps(spool: string, node: string, jobId: number, stepId: number): Plain<StepInfo>[] {
  const out: Plain<StepInfo>[] = [];
  const wanted = (j: number, s: number) => (jobId === 0 || j === jobId) && (stepId === -1 || s === stepId);
  for (const id of listJobIds(spool)) {
    if (!wanted(id, BATCH_STEP_ID)) continue;
    const dir = jobDir(spool, id);
    const launch = readJson<LaunchFile>(join(dir, "launch.json"));
    if (launch?.cgroup === undefined || readJson<StatusFile>(join(dir, "status.json")) !== undefined) continue;
    const sampler = readJson<Sampler>(join(dir, "samples.json")) ?? emptySampler();
    sample(sampler, launch.cgroup.stepTrackDir); // a copy: stepd owns the file
    out.push(stepRecord(id, BATCH_STEP_ID, node, nodeUsage(readCounters(launch.cgroup.stats), sampler, node, 1)));
  }
  for (const s of runningSteps.values()) {
    if (!wanted(s.jobId, s.stepId)) continue;
    sample(s.sampler, s.contained.plan.stepTrackDir);
    out.push(stepRecord(s.jobId, s.stepId, node, nodeUsage(readCounters(s.contained.plan.stats), s.sampler, node, s.ntasks)));
  }
  return out;
}

function stepRecord(jobId: number, stepId: number, node: string, usage: Plain<StepInfo>["usage"]): Plain<StepInfo> {
  const step = emptyStepInfo(jobId, stepId);
  return { ...step, state: "RUNNING", nodelist: node, ntasks: usage?.ntasks ?? 1, ...(usage ? { usage } : {}) };
}
