/**
 * @module sched/model/apply-preempt
 * The `preempt` command: end each victim that is still running and not already
 * ending, by its mode — REQUEUE (back to PENDING when it ends, as scontrol
 * requeue) or CANCEL (final state PREEMPTED). The agent sends SIGTERM now and
 * SIGKILL after the victim's kill wait, which becomes its GraceTime when one
 * is set. Victims that changed since the plan are skipped (the plan is stale).
 */
import type { Command } from "./commands.ts";
import type { ClusterState } from "./types.ts";
import { emptyResult, type ApplyEvent, type ApplyResult } from "./apply.ts";

type Preempt = Extract<Command, { type: "preempt" }>;

export function applyPreempt(state: ClusterState, c: Preempt): ApplyResult {
  const events: ApplyEvent[] = [];
  const ids: number[] = [];
  for (const v of c.victims) {
    const job = state.jobs.get(v.jobId);
    if (job === undefined || job.info.state !== "RUNNING" || job.endRequested !== "") continue;
    job.endRequested = v.mode === "REQUEUE" ? "REQUEUE" : "PREEMPTED";
    job.preemptedBy = c.preemptorId;
    if (v.graceSec > 0) job.info.killWaitSec = v.graceSec;
    ids.push(v.jobId);
    const nodes = job.info.alloc.map((a) => a.node);
    events.push({ type: "signalJob", jobId: v.jobId, nodes, signal: 0, reason: v.mode === "REQUEUE" ? "REQUEUE" : "CANCELLED", batchOnly: false });
  }
  return { ...emptyResult(), ids, events };
}
