/**
 * @module compat/srun-script-env
 * The variables srun gives its own prolog and epilog (--prolog/--epilog, SrunProlog/SrunEpilog),
 * on top of srun's environment. Facts from the 22.05 oracle (`srun --prolog=P -N2 true`): the
 * job's id, name, partition, account, QOS, user and shape, the step's id and node list, and
 * SLURM_SCRIPT_CONTEXT=prolog_srun (epilog_srun after the step).
 */
import type { Plain } from "../lib/plain.ts";
import type { JobInfo, StepInfo } from "../net/gen/spur/v1/types_pb.ts";
import { formatCpusPerNode, formatTasksPerNode } from "./job-env-rows.ts";

export type SrunScriptContext = "prolog_srun" | "epilog_srun";

export function srunScriptEnv(job: Plain<JobInfo>, step: Pick<Plain<StepInfo>, "stepId" | "nodelist" | "ntasks" | "alloc">, context: SrunScriptContext, user: { name: string; uid: number }): Record<string, string> {
  const env: Record<string, string> = {
    SLURM_JOB_ID: String(job.jobId), SLURM_JOBID: String(job.jobId), SLURM_JOB_NAME: job.name,
    SLURM_JOB_PARTITION: job.partition, SLURM_JOB_NUM_NODES: String(job.numNodes),
    SLURM_JOB_USER: user.name, SLURM_JOB_UID: String(user.uid),
    SLURM_STEP_ID: String(step.stepId), SLURM_STEPID: String(step.stepId),
    SLURM_NODELIST: step.nodelist, SLURM_NNODES: String(step.alloc.length),
    SLURM_NTASKS: String(step.ntasks), SLURM_NPROCS: String(step.ntasks),
    SLURM_SCRIPT_CONTEXT: context,
  };
  if (job.account !== "") env.SLURM_JOB_ACCOUNT = job.account;
  if (job.qos !== "") env.SLURM_JOB_QOS = job.qos;
  if (job.alloc.length > 0) env.SLURM_JOB_CPUS_PER_NODE = formatCpusPerNode(job.alloc.map((a) => a.cpus));
  if (step.alloc.length > 0) env.SLURM_TASKS_PER_NODE = formatTasksPerNode(step.alloc.map((a) => a.tasks));
  return env;
}
