/**
 * @module ctld/event-actions
 * The side effects of applied commands (apply() returns them as events): launching batch
 * scripts, signalling agents, answering waiters, counting, the slurmctld epilog, strigger
 * programs; and re-sending launches after a restart. Only the acting controller acts;
 * every replica counts and answers its waiters. Failure policy: an agent that does not
 * answer a signal is ignored here (the due loop fails a silent node); a failed launch
 * requeues the job (job-launch.ts).
 */
import type { ConsolaInstance } from "consola/core";
import type { ApplyEvent } from "../sched/model/apply.ts";
import { runsBatchScript } from "../sched/model/het.ts";
import type { ClusterState } from "../sched/model/types.ts";
import type { AgentLink } from "./agent-link.ts";
import type { createJobLauncher } from "./job-launch.ts";
import { recordEnd, type SchedCounters } from "./sched-stats.ts";
import { runTriggerProgram } from "./trigger-run.ts";

export interface EventDeps {
  state: ClusterState;
  agents: AgentLink;
  logger: ConsolaInstance;
  counters: SchedCounters;
  launcher: ReturnType<typeof createJobLauncher>;
  acting(): boolean;
  /** A job changed state: answer who waits for it. */
  notify(jobId: number): void;
}

export interface EventActions {
  handle(event: ApplyEvent): void;
  /** After a restart: launches are idempotent on the agent, so re-send them for every running batch job. */
  relaunchRunning(): void;
}

export function createEventActions(d: EventDeps): EventActions {
  const { state, launcher, counters, logger } = d;
  return {
    handle(event) {
      switch (event.type) {
        case "launchBatch":
          void launcher.launch(event.jobId);
          break;
        case "signalJob":
          for (const node of event.nodes) void d.agents.signalJob(node, event, state).catch(() => undefined);
          break;
        case "jobStarted":
          counters.jobsStarted += 1;
          d.notify(event.jobId);
          break;
        case "jobFinished":
          recordEnd(counters, state.jobs.get(event.jobId)?.info.state ?? "");
          d.notify(event.jobId);
          if (d.acting()) void launcher.epilogSlurmctld(event.jobId);
          break;
        case "runTrigger":
          runTriggerProgram(event.trigger, event.arg, logger);
          break;
      }
    },
    relaunchRunning() {
      for (const job of state.jobs.values()) {
        if (job.info.state !== "RUNNING" || !runsBatchScript(job.info)) continue;
        void d.agents.launchBatch(job, state).catch(() => undefined);
      }
    },
  };
}
