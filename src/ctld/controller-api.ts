/**
 * @module ctld/controller-api
 * What the controller is given (ControllerDeps) and what it offers the services (Controller),
 * apart from controller.ts so that its pieces can name them without an import cycle.
 */
import type { ConsolaInstance } from "consola/core";
import type { Clock } from "../lib/clock.ts";
import type { ApplyResult } from "../sched/model/apply.ts";
import type { Command } from "../sched/model/commands.ts";
import type { ClusterState } from "../sched/model/types.ts";
import type { JobPriority } from "../sched/plan/priority.ts";
import type { Reservation } from "../sched/plan/schedule.ts";
import type { AgentLink } from "./agent-link.ts";
import type { CtldScripts, ScriptRunner } from "./ctld-scripts.ts";
import type { JobArchive } from "./job-archive.ts";
import type { LogStore } from "./log-store.ts";
import type { SchedCounters } from "./sched-stats.ts";

/** Replicated mode: commands go through consensus; the driver calls applyCommitted(). */

/** A node's load as its agent reports it with each heartbeat: volatile, so never a replicated command. */
export interface NodeLoad {
  cpuLoad: number;
  freeMemoryMib: number;
}

export interface Replication {
  propose(command: Command): Promise<ApplyResult>;
  /** Leader whose state is caught up with everything committed before its term. */
  isServing(): boolean;
}

export interface ControllerDeps {
  state: ClusterState;
  /** Single-controller mode: the local command log. */
  log?: LogStore;
  /** Replicated mode (exactly one of log / replication). */
  replication?: Replication;
  agents: AgentLink;
  logger: ConsolaInstance;
  now: () => number;
  schedIntervalMs?: number;
  /** Told after every scheduling pass (metrics): its wall time and how many jobs it started. */
  onSchedulerPass?: (pass: { seconds: number; started: number }) => void;
  /** PrologSlurmctld / EpilogSlurmctld (batch jobs), as read at start (a reconfigure replaces them). */
  scripts?: CtldScripts;
  /** Runs those scripts (the role wires the process runner in); without it a configured script fails. */
  runScript?: ScriptRunner;
  /** Timers (the scheduling and due loops, group commit, waits) and pass timing; the system clock when not given. `now` stays the state's time. */
  clock?: Clock;
  /**
   * Where purged jobs' records go (ctld/job-archive.ts), read back by sacct. Without it (tests)
   * finished jobs are never purged: they stay in the state, as before purging existed.
   */
  archive?: JobArchive;
  /**
   * A full garbage collection (the roles pass `Bun.gc(true)`), run once the controller is quiet
   * after a burst of commands (ctld/idle-gc.ts). Without it (tests) nothing is collected by hand.
   */
  collectGarbage?: () => void;
}

export interface Controller {
  readonly state: ClusterState;
  /** The purged jobs' records (absent: none are purged). */
  readonly archive: JobArchive | undefined;
  /** Make `command` durable (log or consensus), apply it, answer its result. */
  execute(command: Command): Promise<ApplyResult>;
  /** Replicated mode: the driver applies a committed command here, on every replica (`index`: its log index, for the log). */
  applyCommitted(command: Command, index?: number): ApplyResult;
  /** Replicated mode: this replica became (or stopped being) the serving leader. */
  leadershipChanged(serving: boolean): void;
  /** Pending reasons from the last scheduling pass. */
  reasonOf(jobId: number): string | undefined;
  /** Priority (with factors) and planned start from the last scheduling pass. */
  /** With `partition`: as the job ranks in that one of the partitions it lists (sprio's rows). */
  priorityOf(jobId: number, partition?: string): JobPriority | undefined;
  plannedStart(jobId: number): Reservation | undefined;
  /** Nodes the last pass's backfill plan holds for pending jobs (sinfo shows the idle ones as PLANNED). */
  plannedNodes(): ReadonlySet<string>;
  /**
   * Changes whenever what the job views show may have changed other than through the log
   * (a scheduling pass's reasons, priorities or plan; leadership): with state.appliedIndex it
   * keys the listing cache (ctld/list-cache.ts).
   */
  viewsVersion(): number;
  /** sdiag counters (not replicated: they describe this process). */
  schedCounters(): SchedCounters;
  /**
   * Committed commands skipped as not applicable (ApplyFailed) since this process started, also
   * those skipped by the start-up replay or by the Raft driver (an entry it could not decode):
   * never reset (sdiag --reset clears only sdiag's own count). The metric spur_apply_failed_total.
   */
  applyFailedTotal(): number;
  /** Entries skipped outside applyCommitted (start-up replay, the Raft driver): counted like ApplyFailed. */
  noteSkippedEntries(count: number): void;
  kick(): void;
  waitFor(jobId: number, until: string[], timeoutMs: number): Promise<void>;
  /** Agent `node` was heard from now; `load` is what it said of its host (kept in memory only, like the time). */
  heartbeat(node: string, load?: NodeLoad): void;
  lastHeartbeat(node: string): number | undefined;
  /** The load average and free memory `node` last reported (scontrol CPULoad/FreeMem); undefined before it said any. */
  nodeLoad(node: string): NodeLoad | undefined;
  start(): () => void;
}
