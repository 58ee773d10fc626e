/**
 * @module sched/model/commands
 * Every change to controller state, as data. A command carries everything that
 * is not a pure function of the state (the leader's clock in `at`, who asked),
 * so replaying the log on any replica yields the same state. Versioned by `v`.
 */
import type { ControllerConfig, JobSpecP, NodeInfoP } from "./types.ts";
import type { ReconfigureChange } from "./apply-reconfigure.ts";
import type { AcctRequest } from "../acct/apply-acct.ts";
import type { DueTrigger, TriggerSelector, TriggerSpec } from "./triggers.ts";
import type { JobFilterState, NodeAllocState, StepUsageState } from "./state-types.ts";

export interface Requester {
  uid: number;
  gid: number;
  user: string;
  group: string;
}

export interface StartDecision {
  jobId: number;
  /** When an array meta record starts one element, the element's task id. */
  arrayTaskId: number;
  alloc: NodeAllocState[];
  /** priority/multifactor: the priority the pass started it with (a running job keeps showing it, as in Slurm). */
  priority?: number;
  /** The licenses the job takes ("a:1,b:2"; for `a|b` the one chosen); absent = none. */
  licenses?: string;
  /** Of a job listing several partitions (`-p a,b`), the one it starts in; absent = its own (job-partitions.ts). */
  partition?: string;
}

export type Command =
  /** allocNode: the client's address as the controller resolved it (scontrol AllocNode); absent in older logs. */
  /** het: a heterogeneous job's components after the first (`spec`, the leader); absent or empty = an ordinary job. */
  | { v: 1; type: "submit"; at: number; spec: JobSpecP; by: Requester; priority: number; allocNode?: string; het?: JobSpecP[] }
  | { v: 1; type: "registerNode"; at: number; node: NodeInfoP; runningJobIds: number[] }
  | { v: 1; type: "startJobs"; at: number; decisions: StartDecision[] }
  | {
      v: 1;
      type: "jobEnded";
      at: number;
      jobId: number;
      exitCode: number;
      exitSignal: number;
      /** The agent's view: COMPLETED FAILED TIMEOUT CANCELLED OUT_OF_MEMORY LAUNCH_FAILED NODE_FAIL PROLOG_FAILED; the controller's PROLOG_SLURMCTLD_FAILED */
      outcome: string;
      /** The batch step's usage measured by the agent (absent: not measured). */
      usage?: StepUsageState;
      /** PROLOG_FAILED: the node whose Prolog failed (absent: the batch host). */
      node?: string;
      /**
       * The run the report is about: the job's `restarts` when that run was launched (absent: an
       * older agent or log). A report from an earlier run of a requeued job is stale and changes nothing.
       */
      restarts?: number;
    }
  | { v: 1; type: "cancel"; at: number; filter: JobFilterState; signal: number; batchOnly: boolean; by: Requester }
  | {
      v: 1;
      type: "updateJob";
      at: number;
      jobIds: string[];
      action: string;
      fields: Record<string, string>;
      by: Requester;
    }
  | { v: 1; type: "updateNode"; at: number; nodes: string[]; state: string; reason: string; by: Requester; features?: string }
  | { v: 1; type: "nodeFail"; at: number; node: string; reason: string }
  /** restarts: the run whose launch failed (absent in older logs), as in jobEnded. */
  | { v: 1; type: "launchFailed"; at: number; jobId: number; node: string; reason: string; restarts?: number }
  /** A node agent's measurement of a step's usage there (merged over the step's nodes). */
  | { v: 1; type: "stepUsage"; at: number; jobId: number; stepId: number; node: string; usage: StepUsageState }
  | {
      v: 1; type: "stepCreate"; at: number; jobId: number; name: string; alloc: NodeAllocState[]; ntasks: number;
      /** The srun running the step, and its task distribution (scontrol show step); absent in older logs. */
      srunHost?: string; srunPid?: number; distribution?: string;
      /** The step's --gpu-bind/--tres-bind as Slurm stores it ("gres/gpu:closest"); absent: none. */
      tresBind?: string;
      /** salloc's interactive step (srun --interactive): id INTERACTIVE_STEP_ID; absent in older logs. */
      interactive?: boolean;
    }
  | {
      v: 1;
      type: "stepComplete";
      at: number;
      jobId: number;
      stepId: number;
      exitCode: number;
      exitSignal: number;
      state: string;
    }
  | { v: 1; type: "timeLimitReached"; at: number; jobId: number }
  /** The job's --signal is due (its time before the end reached): send it, once per run. */
  | { v: 1; type: "signalBeforeEnd"; at: number; jobId: number }
  /** sacctmgr add/modify/delete (see sched/acct/apply-acct.ts). */
  | { v: 1; type: "acct"; at: number; request: AcctRequest; by: Requester }
  /** scontrol create/update/delete reservation (times already epoch seconds). */
  | { v: 1; type: "reservation"; at: number; action: "create" | "update" | "delete"; name: string; fields: Record<string, string>; by: Requester }
  /**
   * scontrol create/update/delete partition (sched/model/apply-partition.ts): fields keyed as
   * partitions.ts's PARTITION_KEYS, values as scontrol normalised them.
   */
  | { v: 1; type: "partition"; at: number; action: "create" | "update" | "delete"; name: string; fields: Record<string, string>; by: Requester }
  /** scontrol reconfigure: what spur.conf/topology.conf define, read once by the leader (sched/model/apply-reconfigure.ts). */
  | ({ v: 1; type: "reconfigure"; at: number; by: Requester } & Omit<ReconfigureChange<ControllerConfig>, "by">)
  /** The scheduler's preemption plan (sched/plan/preempt.ts). */
  | {
      v: 1; type: "preempt"; at: number; preemptorId: number;
      victims: { jobId: number; mode: "REQUEUE" | "CANCEL" | "SUSPEND"; graceSec: number }[];
      /** SUSPEND: the preemptor starts in the same step, on the suspended victims' CPUs/GPUs. */
      start?: StartDecision;
    }
  /** Pending jobs that can no longer end before their --deadline (found by the scheduler). */
  | { v: 1; type: "deadlineExpired"; at: number; jobIds: number[] }
  /** Pending jobs whose dependency can never be satisfied, to be cancelled (--kill-on-invalid-dep; found by the scheduler). */
  | { v: 1; type: "dependencyNeverSatisfied"; at: number; jobIds: number[] }
  /**
   * strigger --set / --clear (sched/model/triggers.ts). slurmUid: the uid the controller runs as
   * (Slurm's SlurmUser), recorded by the shell so that every replica decides alike.
   */
  | { v: 1; type: "trigger"; at: number; action: "set"; spec: TriggerSpec; by: Requester; slurmUid: number }
  | { v: 1; type: "trigger"; at: number; action: "clear"; selector: TriggerSelector; by: Requester; slurmUid: number }
  /**
   * The leader found these finished jobs past MinJobAge at `at`: they leave the state (their records go
   * to the accounting archive, ctld/job-archive.ts). apply() re-checks each (sched/model/apply-purge.ts).
   */
  | { v: 1; type: "purgeJobs"; at: number; jobIds: number[] }
  /** The leader found these triggers due: their programs run (on the leader), non-PERM ones are purged. */
  | { v: 1; type: "triggersFired"; at: number; fired: DueTrigger[] };

export type CommandType = Command["type"];
