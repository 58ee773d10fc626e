/**
 * @module sched/model/apply-update
 * User and admin actions on jobs: cancel/signal (scancel), hold, release,
 * requeue and field updates (scontrol). Each target is checked for permission
 * (owner, root or an operator) and state; failures come back per item in
 * Slurm's wording with its error number, and change nothing.
 */
import type { Command, Requester } from "./commands.ts";
import { hetComponents, isHetFollower, runsBatchScript } from "./het.ts";
import type { ClusterState, ControllerConfig, JobRecord } from "./types.ts";
import { isJobFinished } from "./types.ts";
import { emptyResult, type ApplyEvent, type ApplyResult, type ItemResult } from "./apply-result.ts";
import { selectTargets } from "./select-jobs.ts";
import { releaseJob, requeue } from "./apply-run.ts";
import { canModify, JOB_ERRORS } from "./job-access.ts";
import { canResume, resume, suspendByAdmin } from "./apply-preempt.ts";
import { BASIC_PRIORITY_TOP } from "./apply-submit.ts";
import { formatArrayTasks } from "../../compat/array-spec.ts";
import { applyFieldUpdates } from "./update-fields.ts";
import { cancelStep, isStepIdText } from "./apply-cancel-step.ts";
import { applyTop } from "./apply-top.ts";

type Of<T extends Command["type"]> = Extract<Command, { type: T }>;

const SIGCONT_NUMBER = 18;
const SIGSTOP_NUMBER = 19;

/** Slurm's error numbers and texts for per-job failures. */

const isAdmin = (by: Requester, config: ControllerConfig): boolean => by.uid === 0 || config.operators.includes(by.user);

const failure = (id: string, e: { code: number; text: string }): ItemResult => ({ id, error: e.text, errorCode: e.code });
const success = (id: string): ItemResult => ({ id, error: "", errorCode: 0 });

export function applyCancel(state: ClusterState, c: Of<"cancel">): ApplyResult {
  const result = emptyResult();
  const stepIds = c.filter.jobIds.filter(isStepIdText);
  for (const text of stepIds) {
    const one = cancelStep(state, text, c);
    result.items.push(one.item);
    result.events.push(...one.events);
  }
  const jobIds = c.filter.jobIds.filter((id) => !isStepIdText(id));
  // Only step ids and no other selection: nothing else is named (an empty filter would name every job).
  if (stepIds.length > 0 && jobIds.length === 0) return result;
  for (const t of selectTargets(state, { ...c.filter, jobIds })) {
    const job = t.job;
    if (job === undefined) result.items.push(failure(t.id, JOB_ERRORS.invalidJobId));
    else if (!canModify(job, c.by, state.config)) result.items.push(failure(t.id, JOB_ERRORS.accessDenied));
    else if (isJobFinished(job.info)) result.items.push(failure(t.id, JOB_ERRORS.alreadyDone));
    // a pending het job is cancelled whole (Slurm); a started component may be cancelled alone
    else if (t.hetPart === true && job.info.state === "PENDING") result.items.push(failure(t.id, JOB_ERRORS.notWholeHetJob));
    else {
      result.items.push(success(t.id));
      result.events.push(...cancelOne(state, job, t.pendingTasks, c));
    }
  }
  return result;
}

function cancelOne(state: ClusterState, job: JobRecord, tasks: number[], c: Of<"cancel">): ApplyEvent[] {
  const info = job.info;
  const nodes = info.alloc.map((a) => a.node);
  // A signal for a job that is not running yet cancels it, as in Slurm.
  if (c.signal !== 0 && info.state !== "PENDING") {
    if (info.state !== "RUNNING") return [];
    // scancel -s STOP: the job keeps its resources and shows STOPPED (ST) until a CONT (states.tsv).
    if (!c.batchOnly && c.signal === SIGSTOP_NUMBER && !info.stateFlags.includes("STOPPED")) info.stateFlags = [...info.stateFlags, "STOPPED"];
    if (c.signal === SIGCONT_NUMBER) info.stateFlags = info.stateFlags.filter((f) => f !== "STOPPED");
    return [{ type: "signalJob", jobId: info.jobId, nodes, signal: c.signal, reason: "", batchOnly: c.batchOnly }];
  }
  if (info.state === "PENDING") {
    if (tasks.length > 0 && job.arrayPending.length > tasks.length) {
      job.arrayPending = job.arrayPending.filter((t) => !tasks.includes(t));
      info.arrayTaskStr = formatArrayTasks(job.arrayPending, job.arrayThrottle);
      return [];
    }
    // a job cancelled while pending keeps why it was waiting (oracle: Reason=JobHeldUser/BeginTime/Dependency)
    Object.assign(info, { state: "CANCELLED", endTime: c.at, cancelledBy: String(c.by.uid) });
    // and no task count unless -n gave one (oracle: scontrol NumTasks=N/A after scancel of a held job)
    if (job.spec.ntasks === 0) info.numTasks = 0;
    if (tasks.length > 0) info.arrayTaskStr = formatArrayTasks(job.arrayPending, job.arrayThrottle);
    return [{ type: "jobFinished", jobId: info.jobId }];
  }
  info.cancelledBy = String(c.by.uid);
  if (!runsBatchScript(info)) {
    // Interactive allocations (and a het job's components beside its leader) have no batch script to report an end: they end now.
    releaseJob(state, job);
    Object.assign(info, { state: "CANCELLED", endTime: c.at, exitSignal: 9 });
    return [
      { type: "signalJob", jobId: info.jobId, nodes, signal: 0, reason: "CANCELLED", batchOnly: false },
      { type: "jobFinished", jobId: info.jobId },
    ];
  }
  job.endRequested = "CANCELLED";
  return [{ type: "signalJob", jobId: info.jobId, nodes, signal: 0, reason: "CANCELLED", batchOnly: false }];
}

export function applyUpdateJob(state: ClusterState, c: Of<"updateJob">): ApplyResult {
  if (c.action === "top") return applyTop(state, c);
  const result = emptyResult();
  const filter = { jobIds: c.jobIds, user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" };
  for (const t of selectTargets(state, filter)) {
    const job = t.job;
    if (job === undefined) {
      result.items.push(failure(t.id, JOB_ERRORS.invalidJobId));
      continue;
    }
    if (!canModify(job, c.by, state.config)) {
      result.items.push(failure(t.id, JOB_ERRORS.accessDenied));
      continue;
    }
    // requeue, suspend and resume act on a whole het job (Slurm); a requeue goes through the leader, the rest follow it
    if (WHOLE_HET_ACTIONS.has(c.action) && t.hetPart === true) {
      result.items.push(failure(t.id, JOB_ERRORS.notWholeHetJob));
      continue;
    }
    if (c.action.startsWith("requeue") && isHetFollower(job.info)) continue;
    const outcome = updateOne(state, job, c);
    if (c.action.startsWith("requeue") && outcome.error === "" && job.info.state === "PENDING") requeueFollowers(state, job, c.at);
    result.items.push(outcome.error ? { id: t.id, error: outcome.error, errorCode: outcome.code } : success(t.id));
    result.events.push(...outcome.events);
  }
  return result;
}

const WHOLE_HET_ACTIONS: ReadonlySet<string> = new Set(["requeue", "requeuehold", "suspend", "resume"]);

/** A finished het job requeued through its leader: its other components go back to the queue with it. */
function requeueFollowers(state: ClusterState, leader: JobRecord, at: number): void {
  for (const f of hetComponents(state.jobs, leader).slice(1)) {
    if (isJobFinished(f.info)) requeue(f, at);
  }
}

interface Outcome {
  error: string;
  code: number;
  events: ApplyEvent[];
}

const fine = (events: ApplyEvent[] = []): Outcome => ({ error: "", code: 0, events });
const fail = (e: { code: number; text: string }): Outcome => ({ error: e.text, code: e.code, events: [] });

function updateOne(state: ClusterState, job: JobRecord, c: Of<"updateJob">): Outcome {
  const info = job.info;
  const admin = isAdmin(c.by, state.config);
  switch (c.action) {
    case "hold":
    case "uhold": {
      if (info.state !== "PENDING") return fail(JOB_ERRORS.notPending);
      const byAdmin = c.action === "hold" && admin && c.by.uid !== info.uid;
      Object.assign(info, { priority: 0, heldByAdmin: byAdmin || (c.action === "hold" && c.by.uid === 0), reason: "" });
      info.reason = info.heldByAdmin ? "JobHeldAdmin" : "JobHeldUser";
      return fine();
    }
    case "release": {
      if (info.state !== "PENDING") return fail(JOB_ERRORS.notPending);
      if (info.heldByAdmin && !admin) return fail(JOB_ERRORS.accessDenied);
      Object.assign(info, { priority: Math.max(1, BASIC_PRIORITY_TOP - job.sequence - info.nice), heldByAdmin: false, reason: "None" });
      // A release recomputes the priority, as Slurm does, dropping an administrator's fixed value.
      job.priorityFixed = false;
      return fine();
    }
    case "requeue":
    case "requeuehold":
      return requeueOne(job, c.action === "requeuehold", c.at);
    case "update":
      return applyFieldUpdates(state, job, c.fields, admin, c.at);
    case "suspend":
      if (!admin) return fail(JOB_ERRORS.accessDenied);
      // a job that has not started, or has ended, is named as such for both (oracle 22.05)
      if (info.state === "PENDING") return fail(JOB_ERRORS.pending);
      if (isJobFinished(info)) return fail(JOB_ERRORS.alreadyDone);
      if (info.state !== "RUNNING" || job.endRequested !== "") return fail(JOB_ERRORS.notRunning);
      return fine([suspendByAdmin(job, c.at)]);
    case "resume":
      if (!admin) return fail(JOB_ERRORS.accessDenied);
      if (info.state === "PENDING") return fail(JOB_ERRORS.pending);
      if (isJobFinished(info)) return fail(JOB_ERRORS.alreadyDone);
      if (info.state !== "SUSPENDED") return fail(JOB_ERRORS.notSuspended);
      // Suspended for a preemptor that still holds its CPUs/GPUs: not yet.
      if (!canResume(state, job)) return fail(JOB_ERRORS.disabled);
      return fine([resume(state, job, c.at)]);
    default:
      return fail(JOB_ERRORS.disabled);
  }
}

function requeueOne(job: JobRecord, hold: boolean, at: number): Outcome {
  const info = job.info;
  if (!runsBatchScript(info)) return fail(JOB_ERRORS.notBatch);
  if (info.state === "PENDING") return fail(JOB_ERRORS.pending);
  const holdIt = () => Object.assign(info, { priority: hold ? 0 : info.priority, reason: hold ? "JobHeldAdmin" : info.reason, heldByAdmin: hold });
  if (isJobFinished(info)) {
    requeue(job, at);
    holdIt();
    return fine();
  }
  job.endRequested = "REQUEUE";
  const nodes = info.alloc.map((a) => a.node);
  if (hold) info.heldByAdmin = true;
  return fine([{ type: "signalJob", jobId: info.jobId, nodes, signal: 0, reason: "REQUEUE", batchOnly: false }]);
}
