/**
 * @module sched/model/apply-run
 * A job's running life: start (re-checking every share against current free
 * resources, Nomad's plan-applier rule, and splitting array elements off their
 * meta record), the end reported by the node agent, launch failures and the
 * time limit. The final state follows Slurm: a controller-requested end
 * (cancel, timeout, node failure, requeue) wins over what the script returned.
 */
import { noteNodeService } from "./node-history.ts";
import { gresTresText, parseGresItems, trackedGresNames } from "../../compat/gres-generic.ts";
import type { Command, StartDecision } from "./commands.ts";
import type { ClusterState, JobRecord } from "./types.ts";
import { BATCH_STEP_ID, isJobActive } from "./types.ts";
import { emptyResult, rejected, type ApplyEvent, type ApplyResult } from "./apply-result.ts";
import { chargeAlloc, refreshNodeState, releaseAlloc } from "./resources.ts";
import { StartCheck, startPartition, type Freed } from "./start-check.ts";
import { partitionListWithFirst } from "./job-partitions.ts";
import { buildDependencyIndex, dependencyReason, type DependencyIndex } from "../plan/eligibility.ts";
import { emptyStepInfo } from "./records.ts";
import { setStdPaths } from "./std-paths.ts";
import { deadlinePassed } from "./deadline.ts";
import type { SlurmErrorName } from "../../compat/slurm-errors.ts";
import { formatArrayTasks } from "../../compat/array-spec.ts";
import { hostlistUniq } from "../../compat/hostlist.ts";
import { licenseTres, tresText } from "./tres.ts";
import { licensesFitNow } from "../plan/licenses.ts";
import { licenseItemsOf } from "../../compat/licenses.ts";
import { hetComponents, hetSize, isHetComponent, isHetFollower, runsBatchScript } from "./het.ts";
import { internJob } from "./intern.ts";
import { gpuTypesOfText, heldGpuType } from "../../compat/gpu-types.ts";

type Of<T extends Command["type"]> = Extract<Command, { type: T }>;

/**
 * Start decisions, each re-checked against the state as it is now (StartCheck): one
 * that no longer holds is rejected whole (reported in `items`), the rest start.
 * `freed`: CPUs/GPUs the same command released first (a SUSPEND preemption).
 */
export function applyStartJobs(state: ClusterState, c: Of<"startJobs">, freed?: Freed): ApplyResult {
  const result = emptyResult();
  const check = new StartCheck(state, c.at);
  const hetSeen = new Set<number>();
  for (const d of c.decisions) {
    const het = state.jobs.get(d.jobId);
    if (het !== undefined && isHetComponent(het.info)) {
      // all of a het job's components start in this command, or none does
      const leaderId = het.info.hetJobId ?? 0;
      if (!hetSeen.has(leaderId)) startHet(state, c, check, het, result, freed);
      hetSeen.add(leaderId);
      continue;
    }
    const why = checkDecision(check, d, freed);
    if (why !== "") {
      result.items.push({ id: d.arrayTaskId >= 0 ? `${d.jobId}_${d.arrayTaskId}` : String(d.jobId), error: `stale start decision: ${why}`, errorCode: 0 });
      continue;
    }
    if (d.licenses !== undefined && !licensesFitNow(state, licenseItemsOf(d.licenses))) {
      result.items.push({ id: d.arrayTaskId >= 0 ? `${d.jobId}_${d.arrayTaskId}` : String(d.jobId), error: "stale start decision: licenses taken", errorCode: 0 });
      continue;
    }
    const job = state.jobs.get(d.jobId) as JobRecord;
    const target = splitArrayElement(state, job, d.arrayTaskId);
    startOnNodes(state, target, d, c.at);
    check.started(target, target.info.alloc);
    result.events.push({ type: "jobStarted", jobId: target.info.jobId });
    if (target.info.batchFlag) result.events.push({ type: "launchBatch", jobId: target.info.jobId });
    result.ids.push(target.info.jobId);
  }
  return result;
}

/**
 * A heterogeneous job's decisions: each component's is checked and applied in offset order
 * (a later one sees what the earlier ones took); when one no longer holds, or a component has
 * no decision in the command, the ones already applied are undone and the job stays pending.
 * Only the leader launches the batch script.
 */
function startHet(state: ClusterState, c: Of<"startJobs">, check: StartCheck, job: JobRecord, result: ApplyResult, freed: Freed | undefined): void {
  const components = hetComponents(state.jobs, job);
  const decisions = components.map((comp) => c.decisions.find((d) => d.jobId === comp.info.jobId));
  const leaderId = job.info.hetJobId ?? job.info.jobId;
  const refuse = (why: string): void => void result.items.push({ id: String(leaderId), error: `stale start decision: ${why}`, errorCode: 0 });
  if (components.length !== hetSize(job.info) || decisions.some((d) => d === undefined)) return refuse("not every het job component is in it");
  const saved = components.map((comp) => structuredClone(comp.info));
  for (let k = 0; k < components.length; k++) {
    const comp = components[k] as JobRecord;
    const d = decisions[k] as StartDecision;
    const why = checkDecision(check, d, freed);
    if (why !== "") {
      for (let u = 0; u < k; u++) {
        const undo = components[u] as JobRecord;
        releaseJob(state, undo);
        undo.info = saved[u] as JobRecord["info"];
      }
      return refuse(`component ${k}: ${why}`);
    }
    startOnNodes(state, comp, d, c.at);
    check.started(comp, comp.info.alloc);
  }
  for (const comp of components) {
    result.events.push({ type: "jobStarted", jobId: comp.info.jobId });
    if (runsBatchScript(comp.info)) result.events.push({ type: "launchBatch", jobId: comp.info.jobId });
    result.ids.push(comp.info.jobId);
  }
}

/** A decision the check cannot even read (malformed: a bug, or another version's shape) is rejected like a stale one, before any change. */
function checkDecision(check: StartCheck, d: StartDecision, freed: Freed | undefined): string {
  try {
    return check.why(d, freed);
  } catch (error) {
    return `malformed decision: ${String(error)}`;
  }
}

/** An array's meta record keeps the remaining tasks; each started task gets its own id, the last one the meta id. */
function splitArrayElement(state: ClusterState, job: JobRecord, taskId: number): JobRecord {
  if (job.arrayPending.length === 0) return job;
  // StartCheck has made sure the task is still pending (a cancel may have removed it since the pass).
  job.arrayPending.splice(job.arrayPending.indexOf(taskId), 1);
  if (job.arrayPending.length === 0) {
    job.info.arrayTaskId = taskId;
    job.info.arrayTaskStr = "";
    return job;
  }
  const elementId = state.nextJobId;
  state.nextJobId += 1;
  const element: JobRecord = {
    ...structuredClone(job),
    arrayPending: [],
    sequence: job.sequence,
  };
  element.info.jobId = elementId;
  element.info.arrayTaskId = taskId;
  element.info.arrayTaskStr = "";
  internJob(element); // the clone's strings and environment are copies of the parent's: share them again
  job.info.arrayTaskStr = formatArrayTasks(job.arrayPending, job.arrayThrottle);
  state.jobs.set(elementId, element);
  // Slurm's split re-creates the pending remainder as a new record at the end of its job
  // list, so listings (squeue's ties) show the started task before the remainder.
  state.jobs.delete(job.info.jobId);
  state.jobs.set(job.info.jobId, job);
  return element;
}

function startOnNodes(state: ClusterState, job: JobRecord, d: StartDecision, at: number): void {
  const info = job.info;
  // The command stays as logged: the shares are copied before their CPU ids are chosen.
  const alloc = d.alloc.map((share) => ({ ...share, gpuIndices: [...share.gpuIndices] }));
  for (const share of alloc) {
    const node = state.nodes.get(share.node);
    // StartCheck has made sure every share names a node, once, and fits what is free there.
    if (node === undefined) continue;
    chargeAlloc(node, info.jobId, share, job.spec);
    // The type of the GPUs held, from the node's GRES as it is now: gres_detail and scontrol -d name
    // them by it whatever the request named, and a node's GRES may change later.
    if (share.gpuIndices.length > 0) share.gpuType = heldGpuType(gpuTypesOfText(node.info.gres), share.gpuIndices) ?? "";
  }
  const names = alloc.map((s) => s.node);
  const cpus = alloc.reduce((n, s) => n + s.cpus, 0);
  const mem = alloc.reduce((n, s) => n + s.memMib, 0);
  const gpus = alloc.reduce((n, s) => n + s.gpuIndices.length, 0);
  Object.assign(info, {
    state: "RUNNING", reason: "None", startTime: at, alloc, nodelist: hostlistUniq(names),
    batchHost: names[0] ?? "", numNodes: names.length, numCpus: cpus, lastSchedEval: at,
    tresAlloc: tresText(cpus, mem, names.length, gpus) + gresTresText(alloc.flatMap((s) => parseGresItems(s.gres ?? "")), trackedGresNames(state.config.accountingTres)),
    stateFlags: [],
  });
  if (d.licenses !== undefined) {
    info.licensesAlloc = d.licenses;
    info.tresAlloc += licenseTres(licenseItemsOf(d.licenses), state.config.accountingTres);
  }
  if (d.priority !== undefined && d.priority > 0 && job.priorityFixed !== true) info.priority = d.priority;
  // a job listing several partitions runs in one: Partition= is that one from now on (job-partitions.ts)
  if (info.partition.includes(",")) {
    const members = (p: string): Set<string> => new Set(state.partitions.find((x) => x.info.name === p)?.nodeNames ?? []);
    info.partition = startPartition(job, d, (p) => names.every((n) => members(p).has(n))) ?? info.partition;
  }
  if (info.timeLimitMin !== undefined) info.endTime = at + info.timeLimitMin * 60;
  setStdPaths(job, info.batchHost);
}

/** Slurm's MAX_BATCH_REQUEUE: the launch failure that makes this many is held (JobHoldMaxRequeue), not requeued to run. */
export const MAX_BATCH_REQUEUE = 5;
/** The drain reason Slurm gives a node where a batch launch failed. */
export const LAUNCH_FAILURE_DRAIN_REASON = "batch job complete failure";
/** errorCode of an end report for an earlier run of a requeued job (ignored, as Slurm ignores a late batch complete). */
export const STALE_JOB_END = "StaleJobEnd" satisfies SlurmErrorName;

export function applyJobEnded(state: ClusterState, c: Of<"jobEnded">): ApplyResult {
  const result = endOne(state, c);
  const job = state.jobs.get(c.jobId);
  if (job !== undefined && isHetComponent(job.info) && !isHetFollower(job.info) && !isJobActive(job.info)) {
    result.events.push(...endFollowers(state, job, c.at));
  }
  return result;
}

/**
 * The leader of a heterogeneous job has ended (its batch script): every component still
 * running ends with it, in the same state and with the same exit code (Slurm completes the
 * whole job), or goes back to the queue with it when the leader was requeued.
 */
export function endFollowers(state: ClusterState, leader: JobRecord, at: number): ApplyEvent[] {
  const events: ApplyEvent[] = [];
  const end = leader.info;
  for (const f of hetComponents(state.jobs, leader).slice(1)) {
    if (!isJobActive(f.info)) continue;
    const nodes = f.info.alloc.map((a) => a.node);
    releaseJob(state, f);
    events.push({ type: "signalJob", jobId: f.info.jobId, nodes, signal: 0, reason: "END", batchOnly: false });
    if (end.state === "PENDING") {
      requeue(f, at);
      continue;
    }
    Object.assign(f.info, { state: end.state, reason: end.reason, exitCode: end.exitCode, exitSignal: end.exitSignal, endTime: at });
    for (const step of f.info.steps) if (step.state === "RUNNING") Object.assign(step, { state: "CANCELLED", endTime: at });
    f.info.derivedExitCode = Math.max(0, ...f.info.steps.map((s) => s.exitCode));
    f.endRequested = "";
    events.push({ type: "jobFinished", jobId: f.info.jobId });
  }
  return events;
}

function endOne(state: ClusterState, c: Of<"jobEnded">): ApplyResult {
  const job = state.jobs.get(c.jobId);
  if (job === undefined || (job.info.state !== "RUNNING" && job.info.state !== "SUSPENDED")) return emptyResult();
  if (c.restarts !== undefined && c.restarts !== job.info.restarts) {
    return rejected(STALE_JOB_END, `job ${c.jobId}: end report for run ${c.restarts} ignored, run ${job.info.restarts} is current`);
  }
  const batch = runsBatchScript(job.info);
  if (c.outcome === "PROLOG_FAILED" && c.node && c.node !== job.info.batchHost && batch) return prologFailedBesideBatch(state, job, c.node, c.at);
  // Every node of the job ends it (steps left, then its Epilog); the batch host's stepd does that for its own script.
  const others = job.info.alloc.map((a) => a.node).filter((n) => !(batch && n === job.info.batchHost));
  const events: ApplyEvent[] = [{ type: "jobFinished", jobId: c.jobId }];
  if (others.length > 0) events.push({ type: "signalJob", jobId: c.jobId, nodes: others, signal: 0, reason: "END", batchOnly: false });
  releaseJob(state, job);
  // A launch failure of its own (not the end of a run the controller was already ending: a Prolog
  // that failed beside the batch host drained its node and asked for this requeue).
  const launchFailed = c.outcome === "LAUNCH_FAILED" && job.endRequested === "";
  if (launchFailed) drainForLaunchFailure(state, c.node || job.info.batchHost, c.at);
  if (c.outcome === "PROLOG_FAILED") return prologFailed(state, job, c.at, events, true, c.node);
  if (c.outcome === "PROLOG_SLURMCTLD_FAILED") return prologFailed(state, job, c.at, events, false);
  if (job.endRequested === "REQUEUE" || (launchFailed && job.info.requeue)) {
    const hold = job.holdOnRequeue === true;
    const failures = (job.launchFailures ?? 0) + (launchFailed ? 1 : 0);
    requeue(job, c.at);
    if (hold) Object.assign(job.info, { priority: 0, heldByAdmin: true, reason: "JobHeldAdmin" });
    if (failures === 0) return { ...emptyResult(), events };
    job.launchFailures = failures;
    // A launch that keeps failing is not retried forever: as Slurm, held at MAX_BATCH_REQUEUE, the count reset.
    if (failures >= MAX_BATCH_REQUEUE) {
      Object.assign(job.info, { priority: 0, heldByAdmin: true, reason: "JobHoldMaxRequeue" });
      delete job.launchFailures;
    }
    return { ...emptyResult(), events };
  }
  const info = job.info;
  const final = finalState(job, c.outcome, c.exitCode, c.exitSignal);
  Object.assign(info, {
    state: final.state, reason: final.reason, exitCode: c.exitCode, exitSignal: c.exitSignal, endTime: c.at,
  });
  for (const step of info.steps) {
    if (step.state === "RUNNING") Object.assign(step, { state: "CANCELLED", endTime: c.at });
  }
  if (batch) {
    const batchStep = emptyStepInfo(info.jobId, BATCH_STEP_ID);
    const batchState = final.state === "TIMEOUT" || final.state === "CANCELLED" ? "CANCELLED" : final.state;
    Object.assign(batchStep, {
      name: "batch", state: batchState, nodelist: info.batchHost, ntasks: 1, cpus: info.alloc[0]?.cpus ?? 1,
      startTime: info.startTime, endTime: c.at, exitCode: c.exitCode, exitSignal: c.exitSignal,
      tres: tresText(info.alloc[0]?.cpus ?? 1, info.alloc[0]?.memMib ?? 0, 1, info.alloc[0]?.gpuIndices.length ?? 0, false)
        + gresTresText(parseGresItems(info.alloc[0]?.gres ?? ""), trackedGresNames(state.config.accountingTres)),
      ...(c.usage ? { usage: c.usage } : {}),
    });
    info.steps = [batchStep, ...info.steps];
  }
  info.derivedExitCode = Math.max(0, ...info.steps.map((s) => s.exitCode));
  job.endRequested = "";
  delete job.preemptedBy;
  return { ...emptyResult(), events };
}

/**
 * A node's Prolog failed (Slurm): the node is drained ("Prolog error") and the job goes back to
 * the queue held by the admin (JobHeldAdmin; Slurm describes it "launch failed requeued held"), or fails as a launch
 * failure when it may not be requeued (--no-requeue).
 */
function prologFailed(state: ClusterState, job: JobRecord, at: number, events: ApplyEvent[], nodeProlog: boolean, where?: string): ApplyResult {
  if (nodeProlog) drainForProlog(state, where || job.info.batchHost, at);
  // An allocation without a batch script (salloc, srun) is not requeued: it fails, as in Slurm.
  if (!job.info.requeue || !runsBatchScript(job.info)) {
    Object.assign(job.info, { state: "FAILED", reason: "JobLaunchFailure", exitCode: 1, exitSignal: 0, endTime: at });
    job.endRequested = "";
    return { ...emptyResult(), events };
  }
  requeue(job, at);
  // A node's Prolog: held until an admin looks; PrologSlurmctld: simply back in the queue.
  if (nodeProlog) Object.assign(job.info, { priority: 0, heldByAdmin: true, reason: "JobHeldAdmin" });
  return { ...emptyResult(), events };
}

/**
 * A batch launch failed on this node (the agent refused it, or its stepd could not set the job
 * up): as Slurm, the node is drained ("batch job complete failure") so that the requeued job,
 * and the next ones, go elsewhere until an admin looks. An already drained or down node keeps
 * its reason (a failed Prolog drained it first).
 */
function drainForLaunchFailure(state: ClusterState, name: string, at: number): void {
  const node = state.nodes.get(name);
  if (node === undefined || node.drain || node.down) return;
  node.drain = true;
  Object.assign(node.info, { reason: LAUNCH_FAILURE_DRAIN_REASON, reasonUser: "root", reasonTime: at });
  refreshNodeState(node);
  noteNodeService(node, at);
}

function drainForProlog(state: ClusterState, name: string, at: number): void {
  const node = state.nodes.get(name);
  if (node === undefined) return;
  node.drain = true;
  Object.assign(node.info, { reason: "Prolog error", reasonUser: "root", reasonTime: at });
  refreshNodeState(node);
  noteNodeService(node, at);
}

/**
 * The Prolog failed on a node other than the batch host (at the job's first step there, or at
 * allocation with PrologFlags=Alloc) while the batch script may be running: that node is drained,
 * the whole job is told to end, and it goes back to the queue held once the batch host reports
 * its end (or ends NODE_FAIL when it may not be requeued).
 */
function prologFailedBesideBatch(state: ClusterState, job: JobRecord, node: string, at: number): ApplyResult {
  drainForProlog(state, node, at);
  if (job.endRequested === "") {
    job.endRequested = job.info.requeue ? "REQUEUE" : "NODE_FAIL";
    if (job.info.requeue) job.holdOnRequeue = true;
  }
  const nodes = job.info.alloc.map((a) => a.node);
  return { ...emptyResult(), events: [{ type: "signalJob", jobId: job.info.jobId, nodes, signal: 0, reason: "REQUEUE", batchOnly: false }] };
}

function finalState(job: JobRecord, outcome: string, exitCode: number, exitSignal: number): { state: string; reason: string } {
  switch (job.endRequested) {
    case "CANCELLED":
      return { state: "CANCELLED", reason: "None" };
    case "TIMEOUT":
      return { state: "TIMEOUT", reason: "TimeLimit" };
    case "NODE_FAIL":
      return { state: "NODE_FAIL", reason: "NodeDown" };
    case "PREEMPTED":
      return { state: "PREEMPTED", reason: "None" };
    default:
      break;
  }
  if (outcome === "OUT_OF_MEMORY") return { state: "OUT_OF_MEMORY", reason: "OutOfMemory" };
  if (outcome === "TIMEOUT") return { state: "TIMEOUT", reason: "TimeLimit" };
  if (outcome === "NODE_FAIL") return { state: "NODE_FAIL", reason: "NodeDown" };
  if (outcome === "LAUNCH_FAILED") return { state: "FAILED", reason: "JobLaunchFailure" };
  if (exitCode === 0 && exitSignal === 0) return { state: "COMPLETED", reason: "None" };
  return { state: "FAILED", reason: exitSignal !== 0 ? "RaisedSignal" : "NonZeroExitCode" };
}

export function releaseJob(state: ClusterState, job: JobRecord): void {
  // A suspended job's CPUs/GPUs were released when it was suspended: only its memory is left.
  const suspended = job.info.state === "SUSPENDED" && job.suspendedBy !== undefined;
  // A job stopped by `scancel -s STOP` ends as its end says, no longer STOPPED.
  if (job.info.stateFlags.includes("STOPPED")) job.info.stateFlags = job.info.stateFlags.filter((f) => f !== "STOPPED");
  for (const share of job.info.alloc) {
    const node = state.nodes.get(share.node);
    if (node !== undefined) releaseAlloc(node, job.info.jobId, suspended ? { ...share, cpus: 0, gpuIndices: [] } : share);
  }
}

export function requeue(job: JobRecord, at: number): void {
  Object.assign(job.info, {
    state: "PENDING", reason: "None", startTime: 0, endTime: 0, nodelist: "", batchHost: "", alloc: [],
    restarts: job.info.restarts + 1, eligibleTime: at, steps: [], tresAlloc: "", stateFlags: [],
  });
  job.endRequested = "";
  delete job.preemptedBy;
  delete job.holdOnRequeue;
  delete job.info.licensesAlloc;
  // a job of several partitions waits for any of them again, the one it ran in listed first
  // (oracle 22.05: `-p gpu,debug` run in debug and requeued reads Partition=debug,gpu)
  if (job.spec.partition.includes(",")) job.info.partition = partitionListWithFirst(job.spec.partition, job.info.partition);
}

export function applyLaunchFailed(state: ClusterState, c: Of<"launchFailed">): ApplyResult {
  // A launch to another node than the job's batch host was for an earlier run (requeued and started again since).
  const job = state.jobs.get(c.jobId);
  if (job !== undefined && c.node !== "" && job.info.batchHost !== "" && c.node !== job.info.batchHost) return emptyResult();
  return applyJobEnded(state, {
    v: 1, type: "jobEnded", at: c.at, jobId: c.jobId, exitCode: 1, exitSignal: 0, outcome: "LAUNCH_FAILED",
    ...(c.node === "" ? {} : { node: c.node }), ...(c.restarts === undefined ? {} : { restarts: c.restarts }),
  });
}

/**
 * Slurm ends a pending job that cannot finish before its --deadline: state
 * DEADLINE, reason DeadLine. Re-checked here (the job may have started or
 * been cancelled since the pass that found it).
 */
export function applyDeadlineExpired(state: ClusterState, c: Of<"deadlineExpired">): ApplyResult {
  const result = emptyResult();
  for (const jobId of c.jobIds) {
    const job = state.jobs.get(jobId);
    if (job === undefined || job.info.state !== "PENDING" || !deadlinePassed(job, c.at)) continue;
    Object.assign(job.info, { state: "DEADLINE", reason: "DeadLine", endTime: c.at });
    job.arrayPending = [];
    result.events.push({ type: "jobFinished", jobId });
    result.ids.push(jobId);
  }
  return result;
}

/**
 * Slurm cancels a pending job whose dependency can never be satisfied when it asked for
 * it (--kill-on-invalid-dep=yes or DependencyParameters=kill_invalid_depend): state
 * CANCELLED, the reason kept as DependencyNeverSatisfied. The scheduler found the
 * dependency "never" in its snapshot; the verdict is re-evaluated here, since the
 * user may have changed the dependency (scontrol update) since that pass.
 */
export function applyDependencyNeverSatisfied(state: ClusterState, c: Of<"dependencyNeverSatisfied">): ApplyResult {
  const result = emptyResult();
  let deps: DependencyIndex | undefined;
  for (const jobId of c.jobIds) {
    const job = state.jobs.get(jobId);
    if (job === undefined || job.info.state !== "PENDING" || job.spec.dependency === "") continue;
    if (dependencyReason(job, c.at, (deps ??= buildDependencyIndex(state))) !== "DependencyNeverSatisfied") continue;
    Object.assign(job.info, { state: "CANCELLED", reason: "DependencyNeverSatisfied", endTime: c.at });
    job.arrayPending = [];
    result.events.push({ type: "jobFinished", jobId });
    result.ids.push(jobId);
  }
  return result;
}

export function applyTimeLimit(state: ClusterState, c: Of<"timeLimitReached">): ApplyResult {
  const job = state.jobs.get(c.jobId);
  if (job === undefined || job.info.state !== "RUNNING" || job.endRequested !== "") return emptyResult();
  // Re-checked: the limit may have been raised (scontrol update TimeLimit), or the job requeued and
  // started again, between the leader's check and this entry.
  if (!limitReached(job, c.at)) return emptyResult();
  const nodes = job.info.alloc.map((a) => a.node);
  // a het job's component beside its leader has no script to report its end: it ends now
  if (isHetFollower(job.info)) {
    releaseJob(state, job);
    Object.assign(job.info, { state: "TIMEOUT", reason: "TimeLimit", endTime: c.at });
    const events: ApplyEvent[] = [{ type: "signalJob", jobId: c.jobId, nodes, signal: 0, reason: "TIMEOUT", batchOnly: false }, { type: "jobFinished", jobId: c.jobId }];
    return { ...emptyResult(), events };
  }
  job.endRequested = "TIMEOUT";
  return {
    ...emptyResult(),
    events: [{ type: "signalJob", jobId: c.jobId, nodes, signal: 0, reason: "TIMEOUT", batchOnly: false }],
  };
}

/** The job's run has used its time limit by `at` (time spent suspended does not count). */
export function limitReached(job: JobRecord, at: number): boolean {
  const limitMin = job.info.timeLimitMin;
  return limitMin !== undefined && job.info.startTime + (job.suspendedSec ?? 0) + limitMin * 60 <= at;
}
