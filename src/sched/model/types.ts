/**
 * @module sched/model/types
 * The controller's replicated state. Records hold the state's own types (state-types.ts,
 * versioned; field for field what the wire carries today, so that a query is a copy, not a
 * translation; ctld/wire-map checks they stay in step); fields that only the controller
 * needs live beside them. Only apply() (./apply.ts) changes a ClusterState; everything else
 * reads it.
 */
import type { NetworkTopology } from "../../compat/conf/topology-conf.ts";
import type { Reconfigured } from "./apply-reconfigure.ts";
import type { JobInfoState, JobSpecState, NodeInfoState, PartitionInfoState, StepInfoState } from "./state-types.ts";
import type { SchedConfig } from "../plan/sched-config.ts";
import type { AcctState } from "../acct/types.ts";
import type { ResvRecord } from "../resv/types.ts";
import type { PreemptConfig } from "../plan/preempt-config.ts";
import type { TriggerTable } from "./trigger-types.ts";
import type { PurgedUsage } from "../acct/purged-usage-types.ts";

/** Short names the code has used since the records were the wire's (P was for Plain<>): the state types. */
export type JobSpecP = JobSpecState;
export type JobInfoP = JobInfoState;
export type NodeInfoP = NodeInfoState;
export type PartitionInfoP = PartitionInfoState;
export type StepInfoP = StepInfoState;

/** Step ids Slurm reserves for special steps (shown as N.batch, N.extern, N.interactive). */
export const BATCH_STEP_ID = -5;
export const EXTERN_STEP_ID = -4;
export const INTERACTIVE_STEP_ID = -6;

export interface JobRecord {
  info: JobInfoP;
  spec: JobSpecP;
  /** Remaining array task ids still pending in this (meta) record; empty otherwise. */
  arrayPending: number[];
  arrayThrottle: number;
  nextStepId: number;
  /** Set when a cancel/timeout was sent to a running job; the final state comes on completion. */
  endRequested: "" | "CANCELLED" | "TIMEOUT" | "NODE_FAIL" | "REQUEUE" | "PREEMPTED";
  /** Set while the job is being preempted (by this job id); cleared when it ends or requeues. */
  preemptedBy?: number;
  /** Epoch seconds at which the job's priority sequence was assigned (submission order). */
  sequence: number;
  /** An administrator set the priority (`scontrol update job priority=`): it is no longer computed. */
  priorityFixed?: boolean;
  /** The start time of the run for which the --signal warning was sent (sent once per run). */
  warnSignalSentFor?: number;
  /** PreemptMode=SUSPEND: the preemptor this job is suspended for (its CPUs/GPUs released, memory kept). */
  suspendedBy?: number;
  /** Seconds spent suspended in this run: the time limit does not count them. */
  suspendedSec?: number;
  /** A node's Prolog failed beside the batch host: the job is requeued held once the batch script has ended. */
  holdOnRequeue?: boolean;
  /** Launches that failed on a node and were requeued (Slurm's batch_flag count); held at MAX_BATCH_REQUEUE. */
  launchFailures?: number;
  /** Submitted held although no node of its partition could hold it: once released it pends with PartitionConfig. */
  unfitAtSubmit?: boolean;
  /** Nodes the job needs beyond its -N minimum (larger than its partition at submission: PartitionConfig); absent = -N's. */
  nodesNeeded?: number;
}

/** One stretch a node spent out of service (node-history.ts); `end` absent while it lasts. */
export interface NodeDownSpan {
  start: number;
  end?: number;
  /** DOWN or DRAIN (a node both down and drained is DOWN) */
  state: "DOWN" | "DRAIN";
  reason: string;
}

export interface NodeRecord {
  info: NodeInfoP;
  /** GPU indices allocated per job id. */
  gpuByJob: Map<number, number[]>;
  /** CPUs per socket held by each job id (a plain object so snapshots keep it); absent = none placed by socket. */
  socketCpusByJob?: Record<string, number[]>;
  /** CPU ids held by each job id (chosen in apply(), see resources.ts); a plain object so snapshots keep it. */
  cpuIdsByJob?: Record<string, number[]>;
  /** Generic GRES (not GPUs) held by each job id, plain counts ("nvme:1"; NodeAlloc.gres); a plain object so snapshots keep it. */
  gresByJob?: Record<string, string>;
  /** Whether an admin drained the node (scontrol update state=drain). */
  drain: boolean;
  /** Set when the node is DOWN (not responding, or admin). */
  down: boolean;
  /** Features an admin set at run time (scontrol/REST update): kept over what spurd reports when it registers. */
  adminFeatures?: string;
  /** When the node was DOWN or drained (node-history.ts; sreport's Down); absent = never. */
  downSpans?: NodeDownSpan[];
}

export interface PartitionRecord {
  info: PartitionInfoP;
  /** Expanded member node names, in configuration order. */
  nodeNames: string[];
}

export interface ControllerConfig {
  clusterName: string;
  defMemPerCpuMiB: number;
  minJobAgeSec: number;
  killWaitSec: number;
  maxArraySize: number;
  maxJobCount: number;
  firstJobId: number;
  slurmdTimeoutSec: number;
  /** AccountingStoreFlags, lower-cased (job_comment, job_env, job_extra, job_script); absent = none. */
  accountingStoreFlags?: string[];
  /** JobAcctGatherFrequency's task interval (seconds); absent = Slurm's default 30. */
  acctTaskFreqSec?: number;
  /**
   * EnforcePartLimits: NO (Slurm's default) queues a job larger than its partition (it pends
   * with reason PartitionConfig); ANY and ALL reject it at submit. Absent = NO.
   */
  enforcePartLimits?: "NO" | "ANY" | "ALL";
  /** Users (by name) allowed to act on every job, besides root. */
  operators: string[];
  /** Priority plugin, weights and backfill parameters (see plan/sched-config.ts). */
  sched: SchedConfig;
  /** AccountingStorageEnforce, lower-cased (associations, limits, qos, safe, ...); empty = not enforced. */
  acctEnforce: string[];
  /** PriorityFlags, lower-cased (no_fair_tree selects classic fair share). */
  priorityFlags: string[];
  /** PreemptType and PreemptMode (see plan/preempt-config.ts). */
  preempt: PreemptConfig;
  /**
   * The plugin types a reconfigure cannot change (AuthType, SelectType, SwitchType, CredType,
   * BurstBufferType, JobContainerType), lower-cased keys, values as written. Absent = none set.
   */
  restartTypes?: Record<string, string>;
  /** ReconfigFlags, lower-cased (keeppartinfo, keeppartstate: what `scontrol reconfigure` keeps of the partitions). Absent = none. */
  reconfigFlags?: string[];
  /** AccountingStorageTRES, lower-cased (gres/gpu, license/NAME, ...): which optional TRES jobs show. Absent = none. */
  accountingTres?: string[];
  /** slurm.conf GresTypes=, lower-cased: the generic resource names jobs may ask for (gpu is always known). Absent = none. */
  gresTypes?: string[];
}

export interface ClusterState {
  config: ControllerConfig;
  nextJobId: number;
  /** Submission counter: priority/basic gives earlier jobs higher priority. */
  nextSequence: number;
  jobs: Map<number, JobRecord>;
  nodes: Map<string, NodeRecord>;
  partitions: PartitionRecord[];
  /** Index of the last applied command (the log position). */
  appliedIndex: number;
  /** Network topology from topology.conf (configuration, like nodes; absent = flat). */
  topology?: NetworkTopology | undefined;
  /** Accounts, users, associations and QOS (sacctmgr), see sched/acct/types.ts. */
  acct: AcctState;
  /** Advance reservations by name (scontrol create reservation), see sched/resv/types.ts. */
  reservations: Map<string, ResvRecord>;
  /**
   * Reservations deleted after they started, each ending at its deletion (apply-resv.ts): sreport
   * still reports them, as slurmdbd keeps them. The last MAX_DELETED_RESVS; absent = none yet.
   */
  deletedReservations?: ResvRecord[];
  /**
   * Cluster-wide licenses (slurm.conf Licenses=): name → total. Replicated and kept in snapshots;
   * what is in use is what running jobs hold (JobRecord.info.licensesAlloc). Absent = none.
   */
  licenses?: Map<string, number>;
  /**
   * The configuration the last `scontrol reconfigure` replicated (apply-reconfigure.ts): kept in
   * snapshots so that a replica restored from one runs it rather than its own reading of the file.
   * Absent = the configuration read at start.
   */
  reconfigured?: Reconfigured<ControllerConfig>;
  /** Event triggers (strigger), see sched/model/triggers.ts. */
  triggers: TriggerTable;
  /**
   * The usage of the jobs purged from `jobs` after MinJobAge (apply-purge.ts), for fair share and
   * the limits over time (sched/acct/purged-usage.ts). Absent = no job purged yet.
   */
  purgedUsage?: PurgedUsage;
}

export const TERMINAL_JOB_STATES: ReadonlySet<string> = new Set([
  "COMPLETED",
  "CANCELLED",
  "FAILED",
  "TIMEOUT",
  "NODE_FAIL",
  "PREEMPTED",
  "BOOT_FAIL",
  "DEADLINE",
  "OUT_OF_MEMORY",
]);

export const isJobFinished = (info: JobInfoP): boolean => TERMINAL_JOB_STATES.has(info.state);
export const isJobActive = (info: JobInfoP): boolean =>
  info.state === "RUNNING" || info.state === "SUSPENDED";
