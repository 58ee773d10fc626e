/**
 * @module sched/model/apply
 * The ONE mutation point of controller state: apply(state, command) changes the
 * state and returns what happened (results for the caller, events for the shell
 * to act on: launch a script, signal a job). Deterministic: same state + same
 * command = same outcome on every replica and on every replay of the log.
 * Invalid commands change nothing and report an error; they never throw.
 * Job ids never go backwards (checked after every step by tests/sim/controller).
 */
import type { Command } from "./commands.ts";
import type { ClusterState } from "./types.ts";
import { applySubmit } from "./apply-submit.ts";
import { internJob } from "./intern.ts";
import { applyStartJobs, applyJobEnded, applyLaunchFailed, applyTimeLimit, applyDeadlineExpired, applyDependencyNeverSatisfied } from "./apply-run.ts";
import { applyCancel, applyUpdateJob } from "./apply-update.ts";
import { applyRegisterNode, applyUpdateNode, applyNodeFail } from "./apply-node.ts";
import { applyStepCreate, applyStepComplete } from "./apply-step.ts";
import { applyStepUsage } from "./apply-usage.ts";
import { applyAcctCommand } from "../acct/apply-acct-command.ts";
import { applyPreempt, resumeSuspended } from "./apply-preempt.ts";
import { applyReservation } from "../resv/apply-resv.ts";
import { applyPartition } from "./apply-partition.ts";
import { applyReconfigure } from "./apply-reconfigure.ts";
import { applySignalBeforeEnd } from "./apply-signal.ts";
import { applyPurgeJobs } from "./apply-purge.ts";
import { TERMINAL_JOB_STATES, isJobFinished, type JobRecord } from "./types.ts";
import { clearTriggers, fireTriggers, nodeChanges, pullNodeEvents, setTrigger, watchesNodes, type NodeFlags, type TriggerJobFacts } from "./triggers.ts";
import { compressHostlist, expandHostlist } from "../../compat/hostlist.ts";

export { APPLY_FAILED, emptyResult, rejected, type ApplyEvent, type ApplyResult, type ItemResult } from "./apply-result.ts";
import { APPLY_FAILED, emptyResult, rejected, type ApplyResult } from "./apply-result.ts";

/**
 * Total: every command that reached the log is applied or rejected, never thrown.
 * Stale parts of a command (a decision made before a cancel, a hold, a node going down)
 * are rejected by the apply-*.ts that owns them, which check before they change anything
 * (validate, then mutate). What still throws is a bug: it is caught here and the command
 * is answered APPLY_FAILED, the same way on every replica and on every replay (apply is
 * deterministic), so the replicas stay equal and the log stays replayable. Since the
 * checks come before the changes, such a throw comes before the first change; a bug
 * that throws half-way would leave the same half change everywhere (tests/sim/controller
 * checks after every step that no command ever gets here).
 */
export function apply(state: ClusterState, command: Command): ApplyResult {
  let result: ApplyResult;
  try {
    // Triggers waiting for a node to go down/up/drained: read the nodes' flags on both sides of the command.
    const before = watchesNodes(state.triggers) ? nodeFlags(state) : undefined;
    result = known(command) ? dispatch(state, command) : rejected(APPLY_FAILED, `unknown command ${describe(command)}`);
    if (before !== undefined && result.errorCode === "") pullNodeTriggers(state, command, before);
    // A job end may free the CPUs/GPUs a suspended (PreemptMode=SUSPEND) job waits for.
    if (result.events.some((e) => e.type === "jobFinished")) result.events.push(...resumeSuspended(state, command.at));
  } catch (error) {
    result = rejected(APPLY_FAILED, `internal error applying ${describe(command)}: ${String(error)}`);
  }
  state.appliedIndex += 1;
  return result;
}

const COMMAND_TYPES: ReadonlySet<string> = new Set<Command["type"]>([
  "submit", "startJobs", "jobEnded", "launchFailed", "timeLimitReached", "signalBeforeEnd", "deadlineExpired",
  "dependencyNeverSatisfied", "cancel", "updateJob", "registerNode", "updateNode", "nodeFail", "stepCreate",
  "stepComplete", "stepUsage", "acct", "preempt", "reservation", "trigger", "triggersFired", "partition", "reconfigure",
  "purgeJobs",
]);

/** Version 1 and a type this build knows (a newer controller's command is refused, not guessed at). */
function known(c: Command): boolean {
  return typeof c === "object" && c !== null && c.v === 1 && COMMAND_TYPES.has(c.type);
}

function describe(c: unknown): string {
  const o = (typeof c === "object" && c !== null ? c : {}) as { v?: unknown; type?: unknown };
  return `${String(o.type)} (v${String(o.v)})`;
}

/** The new jobs share the strings and environments that jobs already hold (sched/model/intern.ts: ~2/3 of a job's memory). */
function interned(state: ClusterState, result: ApplyResult): ApplyResult {
  for (const id of result.ids) {
    const job = state.jobs.get(id);
    if (job !== undefined) internJob(job);
  }
  return result;
}

function dispatch(state: ClusterState, c: Command): ApplyResult {
  switch (c.type) {
    case "submit":
      return interned(state, applySubmit(state, c));
    case "startJobs":
      return applyStartJobs(state, c);
    case "jobEnded":
      return applyJobEnded(state, c);
    case "launchFailed":
      return applyLaunchFailed(state, c);
    case "timeLimitReached":
      return applyTimeLimit(state, c);
    case "signalBeforeEnd":
      return applySignalBeforeEnd(state, c);
    case "deadlineExpired":
      return applyDeadlineExpired(state, c);
    case "dependencyNeverSatisfied":
      return applyDependencyNeverSatisfied(state, c);
    case "cancel":
      return applyCancel(state, c);
    case "updateJob":
      return applyUpdateJob(state, c);
    case "registerNode":
      return applyRegisterNode(state, c);
    case "updateNode":
      return applyUpdateNode(state, c);
    case "nodeFail":
      return applyNodeFail(state, c);
    case "stepCreate":
      return applyStepCreate(state, c);
    case "stepComplete":
      return applyStepComplete(state, c);
    case "stepUsage":
      return applyStepUsage(state, c);
    case "acct":
      return applyAcctCommand(state, c);
    case "preempt":
      return applyPreempt(state, c);
    case "reservation":
      return applyReservation(state, c);
    case "reconfigure": {
      const out = applyReconfigure(state, c);
      if ("denied" in out) return rejected("UserIdMissing", out.denied);
      return { ...emptyResult(), ...(out.refused.length > 0 ? { text: out.refused.join("\n") } : {}) };
    }
    case "partition": {
      const refused = applyPartition(state, c, (s) => TERMINAL_JOB_STATES.has(s));
      return refused === undefined ? emptyResult() : rejected(refused.code, refused.error);
    }
    case "trigger":
      return applyTrigger(state, c);
    case "purgeJobs":
      return applyPurgeJobs(state, c);
    case "triggersFired":
      return { ...emptyResult(), events: fireTriggers(state.triggers, c.fired).map((r) => ({ type: "runTrigger" as const, ...r })) };
  }
}

/** A job as the trigger rules see it (sched/model/triggers.ts); the controller's due check uses it too. */
export function triggerJobFacts(job: JobRecord | undefined): TriggerJobFacts | undefined {
  if (job === undefined) return undefined;
  const info = job.info;
  const finished = isJobFinished(info);
  const limitMin = info.timeLimitMin;
  const limitAt = info.state === "RUNNING" && limitMin !== undefined ? info.startTime + (job.suspendedSec ?? 0) + limitMin * 60 : undefined;
  const endTime = finished ? info.endTime : limitAt;
  return { uid: info.uid, finished, ...(endTime === undefined ? {} : { endTime }), nodes: info.alloc.map((a) => a.node) };
}

function applyTrigger(state: ClusterState, c: Extract<Command, { type: "trigger" }>): ApplyResult {
  const privileged = c.by.uid === 0 || c.by.uid === c.slurmUid || state.config.operators.includes(c.by.user);
  const who = { by: c.by, privileged, slurmUid: c.slurmUid };
  const answer =
    c.action === "set"
      ? setTrigger(state.triggers, c.spec, who, c.spec.resType === "job" ? triggerJobFacts(state.jobs.get(Number(c.spec.resId))) : undefined)
      : clearTriggers(state.triggers, c.selector, who);
  if (answer.error !== "") return rejected(answer.errorCode || "Internal", answer.error);
  return { ...emptyResult(), ids: answer.id === undefined ? [] : [answer.id] };
}

function nodeFlags(state: ClusterState): Map<string, NodeFlags> {
  const flags = new Map<string, NodeFlags>();
  for (const [name, n] of state.nodes) flags.set(name, { down: n.down, drain: n.drain, busy: n.info.allocCpus > 0 || n.gpuByJob.size > 0 });
  return flags;
}

function pullNodeTriggers(state: ClusterState, c: Command, before: ReadonlyMap<string, NodeFlags>): void {
  const failed = c.type === "updateNode" && c.state.toUpperCase() === "FAIL" ? c.nodes : [];
  const changes = nodeChanges(before, nodeFlags(state), failed);
  const jobNodes = (id: string): string[] => state.jobs.get(Number(id))?.info.alloc.map((a) => a.node) ?? [];
  const expand = (h: string): string[] => {
    const r = expandHostlist(h);
    return r.ok ? r.value : [];
  };
  pullNodeEvents(state.triggers, changes, c.at, jobNodes, expand, (names) => compressHostlist([...names]));
}
