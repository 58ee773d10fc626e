/**
 * @module sched/model/apply-step
 * Job steps (srun inside an allocation): a step gets the next step id of its
 * job and runs on a subset of the job's nodes; its end is reported by srun.
 * Steps share the job's allocation, so they charge nothing on the nodes.
 */
import { gresTresText, parseGresItems, trackedGresNames } from "../../compat/gres-generic.ts";
import type { Command } from "./commands.ts";
import { INTERACTIVE_STEP_ID, type ClusterState } from "./types.ts";
import { emptyResult, rejected, type ApplyResult } from "./apply-result.ts";
import { emptyStepInfo } from "./records.ts";
import { hostlistUniq } from "../../compat/hostlist.ts";
import { tresText } from "./tres.ts";

type Of<T extends Command["type"]> = Extract<Command, { type: T }>;

export function applyStepCreate(state: ClusterState, c: Of<"stepCreate">): ApplyResult {
  const job = state.jobs.get(c.jobId);
  if (job === undefined) return rejected("InvalidJobId", "Invalid job id specified");
  if (job.info.state !== "RUNNING") return rejected("AlreadyDone", "Job/step already completing or completed");
  // the interactive step has its own id (J.interactive) and leaves the numbering of the others alone
  const interactive = c.interactive === true;
  if (interactive && job.info.steps.some((s) => s.stepId === INTERACTIVE_STEP_ID && s.state === "RUNNING")) {
    return rejected("InvalidArgument", "an interactive step already runs in this job");
  }
  const stepId = interactive ? INTERACTIVE_STEP_ID : job.nextStepId;
  if (!interactive) job.nextStepId += 1;
  const step = emptyStepInfo(c.jobId, stepId);
  const cpus = c.alloc.reduce((n, a) => n + a.cpus, 0);
  const mem = c.alloc.reduce((n, a) => n + a.memMib, 0);
  const gpus = c.alloc.reduce((n, a) => n + a.gpuIndices.length, 0);
  Object.assign(step, {
    name: c.name, state: "RUNNING", nodelist: hostlistUniq(c.alloc.map((a) => a.node)), ntasks: c.ntasks,
    cpus, startTime: c.at, alloc: c.alloc,
    // a step has the job's GRES on its nodes by default (srun --gres); tracked ones show in its TRES
    tres: tresText(cpus, mem, c.alloc.length, gpus, false) + gresTresText(c.alloc.flatMap((a) => parseGresItems(a.gres ?? "")), trackedGresNames(state.config.accountingTres)),
    srunHost: c.srunHost ?? "", srunPid: c.srunPid ?? 0, distribution: c.distribution ?? "",
  });
  if ((c.tresBind ?? "") !== "") step.tresBind = c.tresBind;
  // a job without steps holds the shared, frozen empty list (sched/model/intern.ts): its first step gets a list of its own
  if (Object.isFrozen(job.info.steps)) job.info.steps = [step];
  else job.info.steps.push(step);
  return { ...emptyResult(), ids: [stepId] };
}

export function applyStepComplete(state: ClusterState, c: Of<"stepComplete">): ApplyResult {
  const job = state.jobs.get(c.jobId);
  const step = job?.info.steps.find((s) => s.stepId === c.stepId);
  if (job === undefined || step === undefined) return rejected("InvalidJobId", "Invalid job id specified");
  if (step.state !== "RUNNING") return emptyResult();
  Object.assign(step, { state: c.state, exitCode: c.exitCode, exitSignal: c.exitSignal, endTime: c.at });
  return emptyResult();
}
