/**
 * @module sched/model/due
 * What time alone makes due, as a pure function of the state and the clock: jobs past
 * their time limit, `--signal` warnings whose moment has come, nodes silent for longer
 * than SlurmdTimeout. The leader commits what this returns once a second; apply()
 * re-checks each command when it is applied (a job cancelled or its limit raised in
 * between makes it a no-op), so the simulation can commit them late and out of order.
 * When a node was last heard from is the shell's knowledge (heartbeats are not logged),
 * so it comes in as a function. `running`: the jobs to look at, at least every running one
 * (the controller passes the running jobs it listed at this state, ctld/job-phases.ts); every job
 * by default.
 */
import { limitReached } from "./apply-run.ts";
import { signalDue } from "./apply-signal.ts";
import type { Command } from "./commands.ts";
import type { ClusterState, JobRecord } from "./types.ts";

/** A running job whose limit (minus time spent suspended) has passed and that no one is ending yet. */
export function timedOut(job: JobRecord, now: number): boolean {
  return job.info.state === "RUNNING" && job.endRequested === "" && limitReached(job, now);
}

/**
 * The commands due at `now`: timeLimitReached or (else) signalBeforeEnd per job, then
 * nodeFail "Not responding" per node heard from before but not within SlurmdTimeout
 * (`lastHeard` returns 0 for a node never heard from, which is never failed by silence;
 * SlurmdTimeout=0 fails none).
 */
export function dueCommands(state: ClusterState, now: number, lastHeard: (node: string) => number, running: Iterable<JobRecord> = state.jobs.values()): Command[] {
  const out: Command[] = [];
  for (const job of running) {
    if (timedOut(job, now)) out.push({ v: 1, type: "timeLimitReached", at: now, jobId: job.info.jobId });
    else if (signalDue(job, now)) out.push({ v: 1, type: "signalBeforeEnd", at: now, jobId: job.info.jobId });
  }
  const timeoutSec = state.config.slurmdTimeoutSec;
  // SlurmdTimeout=0: Slurm does not test its nodes, silence never fails one (slurm.conf(5); not probed on the oracle)
  if (timeoutSec <= 0) return out;
  for (const node of state.nodes.values()) {
    const seen = lastHeard(node.info.name);
    if (node.info.state === "UNKNOWN" || node.down || seen === 0) continue;
    if (now - seen > timeoutSec) out.push({ v: 1, type: "nodeFail", at: now, node: node.info.name, reason: "Not responding" });
  }
  return out;
}
