/**
 * @module sched/model/apply-usage
 * A step's measured usage, reported by each node agent when the step's tasks
 * there have ended, merged into the step record: the largest RSS/VM size and
 * its node, CPU times summed, the least CPU time and its node, averages
 * weighted by task count. Reports may arrive before or after the step's end.
 */
import type { Command } from "./commands.ts";
import type { ClusterState } from "./types.ts";
import { emptyResult, type ApplyResult } from "./apply-result.ts";
import type { StepUsageState } from "./state-types.ts";

type Usage = StepUsageState;

/** Two nodes' (or partial) usages of one step → their union. */
export function mergeUsage(a: Usage, b: Usage): Usage {
  const na = Math.max(1, a.ntasks);
  const nb = Math.max(1, b.ntasks);
  const ave = (x: number, y: number) => Math.round((x * na + y * nb) / (na + nb));
  const rss = b.maxRssKib > a.maxRssKib ? b : a;
  const vm = b.maxVmsizeKib > a.maxVmsizeKib ? b : a;
  const min = b.minCpuSec < a.minCpuSec ? b : a;
  return {
    maxRssKib: rss.maxRssKib, maxRssNode: rss.maxRssNode, aveRssKib: ave(a.aveRssKib, b.aveRssKib),
    maxVmsizeKib: vm.maxVmsizeKib, maxVmsizeNode: vm.maxVmsizeNode, aveVmsizeKib: ave(a.aveVmsizeKib, b.aveVmsizeKib),
    userCpuSec: a.userCpuSec + b.userCpuSec, systemCpuSec: a.systemCpuSec + b.systemCpuSec,
    minCpuSec: min.minCpuSec, minCpuNode: min.minCpuNode, ntasks: a.ntasks + b.ntasks, maxPages: Math.max(a.maxPages, b.maxPages),
    // The task ranks travel with the node they were measured on.
    ...(rss.maxRssTask !== undefined ? { maxRssTask: rss.maxRssTask } : {}),
    ...(vm.maxVmsizeTask !== undefined ? { maxVmsizeTask: vm.maxVmsizeTask } : {}),
    ...(min.minCpuTask !== undefined ? { minCpuTask: min.minCpuTask } : {}),
  };
}

export function applyStepUsage(state: ClusterState, c: Extract<Command, { type: "stepUsage" }>): ApplyResult {
  const step = state.jobs.get(c.jobId)?.info.steps.find((s) => s.stepId === c.stepId);
  if (step === undefined) return emptyResult(); // the job is gone or was requeued: nothing to record
  step.usage = step.usage === undefined ? { ...c.usage } : mergeUsage(step.usage, c.usage);
  return emptyResult();
}
