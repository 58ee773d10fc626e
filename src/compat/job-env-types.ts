/**
 * @module compat/job-env-types
 * The inputs of the job environment builders (compat/job-env.ts): what the user submitted,
 * the batch and salloc contexts, and a step's layout, task and site facts. A leaf, so the
 * table of rows (job-env-rows.ts) and the builders that apply it can both name them.
 */
import type { Plain } from "../lib/plain.ts";
import type { JobSpec } from "../net/gen/spur/v1/types_pb.ts";

/** The options the user gave (JobSpec as submitted): "only if given" variables. */
export type SubmittedSpec = Partial<Plain<JobSpec>>;

export interface BatchEnvContext {
  clusterName: string;
  /** Name of the batch host and its index in the job's node list (0 for batch). */
  nodeName: string;
  nodeIndex: number;
  /** The environment exported at submit (after --export filtering). */
  submitEnv: Record<string, string>;
  /** Path written as SLURM_CONF. */
  confPath: string;
  /** Global GPU indexes the job holds on this node. */
  gpuIndicesOnNode: number[];
  /** ConstrainDevices=yes: visible-device variables renumbered from 0. */
  constrainDevices: boolean;
  /** Unique ids of the node's GPUs by node-wide index (MIG UUIDs stand in for indices). */
  gpuUniqueIds?: readonly string[];
  /** Private TMPDIR (job_container); default: submitEnv's TMPDIR, else /tmp. */
  tmpDir?: string;
  /**
   * The submitted options. Without it, "only if given" variables fall back to
   * JobInfo with 0 meaning "not given" (JobInfo cannot tell `-n 1` from no -n).
   */
  spec?: SubmittedSpec;
  /** cwd of sbatch; default submitEnv SLURM_SUBMIT_DIR, then PWD, then job.workDir. */
  submitDir?: string;
  /** topology address of the node (22.05 also set these with topology/default). */
  topology?: { addr: string; pattern: string };
}

export interface SallocEnvContext {
  clusterName: string;
  submitEnv: Record<string, string>;
  spec?: SubmittedSpec;
  submitDir?: string;
}

export interface StepLayout {
  stepId: number;
  nodelist: string;
  ntasks: number;
  tasksPerNode: number[];
  nodeNames: string[];
  /** CPUs of the step per node (same order); default: the job's share. */
  cpusPerNode?: number[];
}

export interface StepTask {
  taskId: number;
  localId: number;
  nodeIndex: number;
  nodeName: string;
  /** Global GPU indexes bound to this task (step GPUs on the node). */
  gpuIndicesOnNode: number[];
  constrainDevices: boolean;
  /** Global ranks on this node (SLURM_GTIDS); default: block layout of the step. */
  gtids?: number[];
}

/** Site facts a step needs that srun's own environment may lack (new allocation). */
export interface StepSite {
  clusterName?: string;
  /** srun's own settings a task sees: its umask, -l, -c. */
  umask?: number;
  labelIo?: boolean;
  cpusPerTask?: number;
  confPath?: string;
  submitDir?: string;
  submitHost?: string;
  tmpDir?: string;
  topology?: { addr: string; pattern: string };
  /** srun's own listener (its message port), when it has one: the SLURM_SRUN_COMM_* variables name it. */
  launcher?: { host: string; port: number };
  /** srun -m as given ("" or absent: not given). */
  distribution?: string;
}
