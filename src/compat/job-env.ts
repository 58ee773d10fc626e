/**
 * @module job-env
 * The environment a job sees: the batch script (controller builds it for
 * LaunchBatch), one srun task (srun/agent), and the salloc shell. One table of
 * rows (variable, contexts, value) drives all three; facts in
 * /work/shared/slurm-surface/job-env.tsv, goldens 026, 039-041, 060, 061.
 */
import { assert } from "../lib/assert.ts";
import type { Plain } from "../lib/plain.ts";
import type { JobInfo } from "../net/gen/spur/v1/types_pb.ts";
import { ENV_ROWS, envJobId, type EnvInput, type EnvNode } from "./job-env-rows.ts";

export { formatCpusPerNode, formatTasksPerNode } from "./job-env-rows.ts";

export type { BatchEnvContext, SallocEnvContext, StepLayout, StepSite, StepTask, SubmittedSpec } from "./job-env-types.ts";
import type { BatchEnvContext, SallocEnvContext, StepLayout, StepSite, StepTask } from "./job-env-types.ts";

/** Apply the table rows of one context on top of `base`. */
function applyRows(input: EnvInput): Record<string, string> {
  const env: Record<string, string> = { ...input.base };
  for (const row of ENV_ROWS) {
    if (!row.contexts.includes(input.context)) continue;
    if (row.keepIn?.includes(input.context) === true && input.base[row.name] !== undefined) continue;
    const value = row.value(input);
    if (value === null) delete env[row.name];
    else if (value !== undefined) env[row.name] = value;
  }
  assert(env.SLURM_JOB_ID === `${envJobId(input)}`, "every context carries the job id");
  return env;
}

function jobNodeCpus(job: Plain<JobInfo>, nodeName: string, nodeIndex: number): number {
  const share = job.alloc.find((alloc) => alloc.node === nodeName) ?? job.alloc[nodeIndex];
  return share?.cpus ?? Math.max(1, Math.floor(job.numCpus / Math.max(1, job.numNodes)));
}

/**
 * The complete environment of a batch script: the exported submit environment
 * plus every SLURM_* variable the table marks for batch. Variables Slurm only
 * sets when an option was given follow `ctx.spec`.
 */
export function buildBatchEnv(job: Plain<JobInfo>, ctx: BatchEnvContext): Record<string, string> {
  assert(ctx.nodeIndex >= 0 && ctx.nodeName !== "", "batch env needs the batch host");
  const node: EnvNode = {
    name: ctx.nodeName,
    index: ctx.nodeIndex,
    cpus: jobNodeCpus(job, ctx.nodeName, ctx.nodeIndex),
    gpuIndices: ctx.gpuIndicesOnNode,
    constrainDevices: ctx.constrainDevices,
    ...(ctx.gpuUniqueIds === undefined ? {} : { gpuUniqueIds: ctx.gpuUniqueIds }),
  };
  return applyRows({
    context: "batch",
    job,
    spec: ctx.spec,
    base: ctx.submitEnv,
    site: {
      clusterName: ctx.clusterName,
      confPath: ctx.confPath,
      submitDir: ctx.submitDir,
      tmpDir: ctx.tmpDir,
      topology: ctx.topology,
    },
    node,
  });
}

/** The salloc shell: job-level SLURM_* variables, no node, step or task ones. */
export function buildSallocEnv(job: Plain<JobInfo>, ctx: SallocEnvContext): Record<string, string> {
  return applyRows({
    context: "salloc",
    job,
    spec: ctx.spec,
    base: ctx.submitEnv,
    site: { clusterName: ctx.clusterName, submitDir: ctx.submitDir },
  });
}

/**
 * One srun task: `base` is srun's environment (the batch env inside a job, the
 * user's shell for a new allocation) and wins for the variables srun only sets
 * for a new allocation (SLURM_JOB_NAME, SLURM_SUBMIT_DIR, ...). Step values
 * replace the job ones in SLURM_NNODES / NODELIST / NTASKS / TASKS_PER_NODE; GPU
 * variables come from the task's GPUs and are removed when it has none.
 */
export function buildStepTaskEnv(
  job: Plain<JobInfo>,
  step: StepLayout,
  task: StepTask,
  base: Record<string, string>,
  site: StepSite = {},
): Record<string, string> {
  assert(task.nodeIndex >= 0 && task.nodeIndex < Math.max(1, step.nodeNames.length), "task node inside the step");
  const cpus = step.cpusPerNode?.[task.nodeIndex] ?? jobNodeCpus(job, task.nodeName, task.nodeIndex);
  const node: EnvNode = {
    name: task.nodeName,
    index: task.nodeIndex,
    cpus,
    gpuIndices: task.gpuIndicesOnNode,
    constrainDevices: task.constrainDevices,
  };
  return applyRows({ context: "step", job, spec: undefined, base, site, node, step, task });
}
