/**
 * @module job-env-rows
 * The table behind job-env: one row per variable with the contexts that get it
 * (batch script, salloc shell, srun task) and how its value is derived, plus
 * Slurm's `value(xN)` count compression. Rows mirror job-env.tsv's when_set column.
 */
import { exclusiveEnvText, overSubscribeEnvText } from "./oversubscribe.ts";
import type { Plain } from "../lib/plain.ts";
import type { JobInfo } from "../net/gen/spur/v1/types_pb.ts";
import { arrayTaskStep, parseArraySpec } from "./array-spec.ts";
import { localDeviceList } from "./visible-devices.ts";
import { isArbitrary } from "./task-layout.ts";
import { expandHostlist } from "./hostlist.ts";
import type { StepLayout, StepSite, StepTask, SubmittedSpec } from "./job-env-types.ts";
import { gresTotalOf, parseGresItems, sharingGpusOf } from "./gres-generic.ts";

export type EnvContext = "batch" | "salloc" | "step";

/** The node the environment is for (batch host or the task's node). */
export interface EnvNode {
  name: string;
  index: number;
  cpus: number;
  gpuIndices: number[];
  constrainDevices: boolean;
  /** Unique ids of the node's GPUs by node-wide index (MIG UUIDs); empty when none has one. */
  gpuUniqueIds?: readonly string[];
}

export interface EnvInput {
  context: EnvContext;
  job: Plain<JobInfo>;
  spec: SubmittedSpec | undefined;
  /** submitEnv (batch, salloc) or srun's environment (step). */
  base: Record<string, string>;
  site: StepSite;
  node?: EnvNode;
  step?: StepLayout;
  task?: StepTask;
}

/** undefined = leave the variable as it is; null = remove it. */
type EnvValue = string | undefined | null;

export interface EnvRow {
  name: string;
  contexts: readonly EnvContext[];
  value: (input: EnvInput) => EnvValue;
  /** Contexts where a value already present in `base` wins. */
  keepIn?: readonly EnvContext[];
}

/** Slurm's count compression: [4,4,2] → "4(x2),2". */
export function formatCpusPerNode(counts: readonly number[]): string {
  const runs: [value: number, reps: number][] = [];
  for (const count of counts) {
    const run = runs[runs.length - 1];
    if (run !== undefined && run[0] === count) run[1]++;
    else runs.push([count, 1]);
  }
  return runs.map(([value, reps]) => (reps === 1 ? `${value}` : `${value}(x${reps})`)).join(",");
}

/** SLURM_TASKS_PER_NODE uses the same compression. */
export const formatTasksPerNode = formatCpusPerNode;

/** Largest MaxArraySize Slurm accepts; bounds the fallback parse below. */
const MAX_ARRAY_SIZE_LIMIT = 4_000_001;

const BJS: readonly EnvContext[] = ["batch", "salloc", "step"];
const BS: readonly EnvContext[] = ["batch", "salloc"];
const BT: readonly EnvContext[] = ["batch", "step"];
const B: readonly EnvContext[] = ["batch"];
const T: readonly EnvContext[] = ["step"];

const text = (value: string | undefined): EnvValue => (value === undefined || value === "" ? undefined : value);
const count = (value: number | undefined): EnvValue => (value === undefined || value <= 0 ? undefined : `${value}`);
const list = (ids: readonly number[]): string => ids.join(",");

const given = (input: EnvInput, fromSpec: number | undefined, fromJob: number): number =>
  input.spec === undefined ? fromJob : (fromSpec ?? 0);

const cpusPerTask = (input: EnvInput): number => given(input, input.spec?.cpusPerTask, input.job.cpusPerTask);
const ntasksPerNode = (input: EnvInput): number => given(input, input.spec?.ntasksPerNode, input.job.ntasksPerNode);

/** -n, else derivable from --ntasks-per-node; undefined when neither was given. */
function jobNtasks(input: EnvInput): number | undefined {
  const ntasks = given(input, input.spec?.ntasks, input.job.numTasks);
  if (ntasks > 0) return ntasks;
  const perNode = ntasksPerNode(input);
  return perNode > 0 ? perNode * jobNodeCount(input.job) : undefined;
}

const jobNodeCount = (job: Plain<JobInfo>): number => job.numNodes || job.alloc.length || 1;

function jobCpusPerNode(job: Plain<JobInfo>): number[] {
  if (job.alloc.length > 0) return job.alloc.map((alloc) => alloc.cpus);
  const nodes = jobNodeCount(job);
  return Array.from({ length: nodes }, () => Math.max(1, Math.floor(job.numCpus / nodes)));
}

/** Tasks per node of the allocation; without a task count, CPUs / cpus-per-task. */
function jobTasksPerNode(input: EnvInput): number[] {
  const perTask = Math.max(1, cpusPerTask(input));
  return jobCpusPerNode(input.job).map((cpus, i) => {
    const tasks = input.job.alloc[i]?.tasks ?? 0;
    return tasks > 0 ? tasks : Math.max(1, Math.floor(cpus / perTask));
  });
}

/** Memory: per-CPU when the job's memory is per CPU (--mem-per-cpu, DefMemPerCPU). */
function memPerCpu(input: EnvInput): number {
  if (input.spec?.memPerCpuMib !== undefined) return input.spec.memPerCpuMib;
  return input.spec?.memPerNodeMib !== undefined ? 0 : input.job.memPerCpuMib;
}
const memPerNode = (input: EnvInput): number =>
  memPerCpu(input) > 0 ? 0 : (input.spec?.memPerNodeMib ?? input.job.memPerNodeMib);

/** SLURM_GPUS echoes the -G text; from tres_per_job "gres/gpu:a100:2" → "a100:2". */
function gpusOption(input: EnvInput): string | undefined {
  if (input.spec !== undefined) return input.spec.gpus || undefined;
  for (const item of input.job.tresPerJob.split(",")) {
    const match = /^gres[/:]gpu[:=](.+)$/.exec(item);
    if (match?.[1] !== undefined) return match[1];
  }
  return undefined;
}

/** SLURM_TRES_PER_TASK: "cpu=4,gres/gpu=1" from -c and --gpus-per-task. */
function tresPerTask(input: EnvInput): string | undefined {
  const parts: string[] = [];
  const cpus = cpusPerTask(input);
  if (cpus > 0) parts.push(`cpu=${cpus}`);
  const gpus = input.spec?.gpusPerTask ?? "";
  const typed = /^(.+):([0-9]+)$/.exec(gpus);
  if (typed !== null) parts.push(`gres/gpu:${typed[1]}=${typed[2]}`);
  else if (gpus !== "") parts.push(`gres/gpu=${gpus}`);
  return parts.length > 0 ? parts.join(",") : undefined;
}

/** ARRAY_* values from the submitted --array (or the record's task string). */
function arrayFacts(input: EnvInput): { count: number; min: number; max: number; step: number } | undefined {
  const { job } = input;
  if (job.arrayTaskId < 0 || job.arrayJobId === 0) return undefined;
  const source = input.spec?.array || job.arrayTaskStr;
  const parsed = source === "" ? undefined : parseArraySpec(source, MAX_ARRAY_SIZE_LIMIT);
  const ids = parsed?.ok === true ? parsed.value.taskIds : [job.arrayTaskId];
  const first = ids[0] ?? job.arrayTaskId;
  const last = ids[ids.length - 1] ?? job.arrayTaskId;
  return { count: ids.length, min: first, max: last, step: source === "" ? 1 : arrayTaskStep(source) };
}

/** Visible-device list: the job's GPUs on the node in index order, by the one rule of visible-devices.ts. */
function visibleDevices(input: EnvInput): EnvValue {
  const node = input.node;
  if (node === undefined) return null;
  // A job on shards or MPS sees the GPU they sit on, "the same as if it were a GPU" (gres.html)
  const gpus = node.gpuIndices.length > 0 ? node.gpuIndices : sharingGpusOf(input.job.alloc.find((a) => a.node === node.name)?.gres);
  if (gpus.length === 0) return null;
  const sorted = [...gpus].sort((a, b) => a - b);
  return localDeviceList(sorted, { constrain: node.constrainDevices, uniqueIds: node.gpuUniqueIds ?? [] });
}
const nodeGpus = (input: EnvInput): EnvValue => {
  const gpus = input.node?.gpuIndices ?? [];
  return gpus.length === 0 ? null : list([...gpus].sort((a, b) => a - b));
};

/** SLURM_GTIDS: the task's list, else the ranks a block layout puts on the node. */
function gtids(input: EnvInput): string {
  const { step, task } = input;
  if (step === undefined || task === undefined) return "0";
  if (task.gtids !== undefined) return list(task.gtids);
  const before = step.tasksPerNode.slice(0, task.nodeIndex).reduce((sum, n) => sum + n, 0);
  const here = step.tasksPerNode[task.nodeIndex] ?? 1;
  return list(Array.from({ length: here }, (_, i) => before + i));
}

function jobEndTime(job: Plain<JobInfo>): number {
  if (job.endTime > 0) return job.endTime;
  const limitSec = job.timeLimitMin === undefined ? 365 * 86400 : job.timeLimitMin * 60;
  return job.startTime + limitSec;
}

const submitDir = (input: EnvInput): string =>
  input.site.submitDir ?? input.base.SLURM_SUBMIT_DIR ?? input.base.PWD ?? input.job.workDir;

/**
 * -m arbitrary: sbatch/salloc put the host list (one entry per task, SLURM_HOSTFILE's or -w's)
 * in SLURM_ARBITRARY_NODELIST, and the job's SLURM_TASKS_PER_NODE counts each node's entries
 * ("n[2,2,1,3]" on n[1-3]: 1,2,1). When the list's length is not the task count Slurm cannot lay
 * the tasks out, and a batch script gets no SLURM_TASKS_PER_NODE (the oracle: the file n2 n2 n1
 * n3 without -n, 3 tasks). salloc refuses that case before its shell starts (roles/cli/salloc).
 */
function jobTasksPerNodeText(i: EnvInput): string | undefined {
  const list = i.base.SLURM_ARBITRARY_NODELIST;
  if (list === undefined || !isArbitrary(i.spec?.distribution ?? "")) return formatTasksPerNode(jobTasksPerNode(i));
  const hosts = expandHostlist(list);
  const nodes = expandHostlist(i.job.nodelist);
  if (!hosts.ok || !nodes.ok) return undefined;
  if (i.context === "batch" && hosts.value.length !== jobNtasks(i)) return undefined;
  return formatTasksPerNode(nodes.value.map((n) => hosts.value.filter((h) => h === n).length));
}

const stepOr = (input: EnvInput, ofStep: (step: StepLayout) => string, ofJob: () => string): string =>
  input.context === "step" && input.step !== undefined ? ofStep(input.step) : ofJob();

/**
 * The job id a context shows: a step of a heterogeneous job's component sees the leader's
 * (the whole job's) id, as Slurm's srun --het-group; everywhere else the record's own.
 */
export const envJobId = (input: Pick<EnvInput, "context" | "job">): number =>
  input.context === "step" && (input.job.hetJobId ?? 0) !== 0 ? (input.job.hetJobId as number) : input.job.jobId;

/** Batch/salloc: only when -n (or --ntasks-per-node) was given; steps: always. */
const jobNtasksText = (input: EnvInput): EnvValue =>
  input.context === "step" && input.step !== undefined ? `${input.step.ntasks}` : count(jobNtasks(input));

/**
 * Every variable Spur sets. Not here, on purpose: SLURM_TASK_PID
 * (the agent knows it), SLURM_NODE_ALIASES and SLURM_WORKING_CLUSTER
 * (22.05 only / not in the table), het-job suffixes, MPI launcher hints.
 */
export const ENV_ROWS: readonly EnvRow[] = [
  { name: "SLURM_JOB_ID", contexts: BJS, value: (i) => `${envJobId(i)}` },
  { name: "SLURM_JOBID", contexts: BJS, value: (i) => `${envJobId(i)}` },
  { name: "SLURM_JOB_NAME", contexts: BJS, keepIn: T, value: ({ job }) => job.name },
  { name: "SLURM_JOB_NUM_NODES", contexts: BJS, value: ({ job }) => `${jobNodeCount(job)}` },
  { name: "SLURM_NNODES", contexts: BJS, value: (i) => stepOr(i, (s) => `${s.nodeNames.length}`, () => `${jobNodeCount(i.job)}`) },
  { name: "SLURM_JOB_NODELIST", contexts: BJS, value: ({ job }) => job.nodelist },
  { name: "SLURM_NODELIST", contexts: BJS, value: (i) => stepOr(i, (s) => s.nodelist, () => i.job.nodelist) },
  { name: "SLURM_JOB_PARTITION", contexts: BJS, value: ({ job }) => text(job.partition) },
  { name: "SLURM_JOB_ACCOUNT", contexts: BJS, value: ({ job }) => text(job.account) },
  { name: "SLURM_JOB_QOS", contexts: BJS, value: ({ job }) => text(job.qos) },
  { name: "SLURM_JOB_RESERVATION", contexts: BJS, value: ({ job }) => text(job.reservation) },
  { name: "SLURM_JOB_CPUS_PER_NODE", contexts: BJS, value: ({ job }) => formatCpusPerNode(jobCpusPerNode(job)) },
  {
    name: "SLURM_TASKS_PER_NODE",
    contexts: BJS,
    value: (i) => (i.context === "step" && i.step !== undefined ? formatTasksPerNode(i.step.tasksPerNode) : jobTasksPerNodeText(i)),
  },
  { name: "SLURM_NTASKS", contexts: BJS, value: jobNtasksText },
  { name: "SLURM_NPROCS", contexts: BJS, value: jobNtasksText },
  { name: "SLURM_NTASKS_PER_NODE", contexts: BS, value: (i) => count(ntasksPerNode(i)) },
  {
    name: "SLURM_CPUS_PER_TASK",
    contexts: BJS,
    value: (i) => (i.context === "step" ? count(i.site.cpusPerTask) : count(cpusPerTask(i))),
  },
  { name: "SLURM_CPUS_ON_NODE", contexts: BT, value: ({ node }) => count(node?.cpus) },
  { name: "SLURM_CPUS_PER_GPU", contexts: BS, value: ({ spec }) => count(spec?.cpusPerGpu) },
  { name: "SLURM_NTASKS_PER_GPU", contexts: BS, value: ({ spec }) => count(spec?.ntasksPerGpu) },
  // --ntasks-per-gpu is kept as a per-TRES count too; Slurm exports both.
  { name: "SLURM_NTASKS_PER_TRES", contexts: BS, value: ({ spec }) => count(spec?.ntasksPerGpu) },
  // --gpu-bind travels as the TRES binding "gres/gpu:<value>" (job-env.tsv: SLURM_GPU_BIND is not exported).
  { name: "SLURM_TRES_BIND", contexts: BS, value: ({ spec }) => (spec?.gpuBind ? `gres/gpu:${spec.gpuBind}` : undefined) },
  { name: "SLURM_MEM_PER_NODE", contexts: BS, value: (i) => count(memPerNode(i)) },
  { name: "SLURM_MEM_PER_CPU", contexts: BS, value: (i) => count(memPerCpu(i)) },
  { name: "SLURM_MEM_PER_GPU", contexts: BS, value: ({ spec }) => count(spec?.memPerGpuMib) },
  { name: "SLURM_GPUS", contexts: BS, value: gpusOption },
  { name: "SLURM_GPUS_PER_NODE", contexts: BS, value: ({ spec }) => text(spec?.gpusPerNode) },
  { name: "SLURM_GPUS_PER_SOCKET", contexts: BS, value: ({ spec }) => text(spec?.gpusPerSocket) },
  { name: "SLURM_TRES_PER_TASK", contexts: BS, value: tresPerTask },
  // steps: srun's -m (26.x table: only when given), else whatever the task inherits
  { name: "SLURM_DISTRIBUTION", contexts: BJS, value: (i) => text(i.context === "step" ? i.site.distribution : i.spec?.distribution) },
  { name: "SLURM_OVERCOMMIT", contexts: BS, value: ({ spec }) => (spec?.overcommit === true ? "1" : undefined) },
  { name: "SLURM_THREADS_PER_CORE", contexts: BS, value: ({ spec }) => count(spec?.threadsPerCore) },
  { name: "SLURM_GPUS_ON_NODE", contexts: BT, value: ({ node }) => (node?.gpuIndices.length ? `${node.gpuIndices.length}` : null) },
  { name: "SLURM_JOB_GPUS", contexts: B, value: nodeGpus },
  { name: "SLURM_SHARDS_ON_NODE", contexts: BT, value: shardsOnNode },
  { name: "SLURM_STEP_GPUS", contexts: T, value: nodeGpus },
  { name: "CUDA_VISIBLE_DEVICES", contexts: BT, value: visibleDevices },
  { name: "ROCR_VISIBLE_DEVICES", contexts: BT, value: visibleDevices },
  { name: "ZE_AFFINITY_MASK", contexts: BT, value: visibleDevices },
  { name: "GPU_DEVICE_ORDINAL", contexts: BT, value: visibleDevices },
  // as the controller validated them ("matlab:1", job-env.tsv), the request as typed when absent
  { name: "SLURM_JOB_LICENSES", contexts: B, value: ({ job, spec }) => text(job.licenses || spec?.licenses) },
  { name: "SLURM_OPEN_MODE", contexts: B, value: ({ spec }) => text(spec?.openMode)?.slice(0, 1) },
  { name: "SLURM_JOB_DEPENDENCY", contexts: ["batch", "step"], keepIn: T, value: ({ job }) => text(job.dependency) },
  { name: "SLURM_EXPORT_ENV", contexts: B, keepIn: B, value: ({ spec }) => text(spec?.export) },
  {
    name: "SLURM_GET_USER_ENV",
    contexts: B,
    value: ({ spec }) => (spec?.export && !/^ALL(,|$)/i.test(spec.export) ? "1" : undefined),
  },
  { name: "SLURM_ARRAY_JOB_ID", contexts: B, value: (i) => (arrayFacts(i) ? `${i.job.arrayJobId}` : undefined) },
  { name: "SLURM_ARRAY_TASK_ID", contexts: B, value: (i) => (arrayFacts(i) ? `${i.job.arrayTaskId}` : undefined) },
  { name: "SLURM_ARRAY_TASK_COUNT", contexts: B, value: (i) => count(arrayFacts(i)?.count) },
  { name: "SLURM_ARRAY_TASK_MIN", contexts: B, value: (i) => arrayFacts(i)?.min.toString() },
  { name: "SLURM_ARRAY_TASK_MAX", contexts: B, value: (i) => arrayFacts(i)?.max.toString() },
  { name: "SLURM_ARRAY_TASK_STEP", contexts: B, value: (i) => arrayFacts(i)?.step.toString() },
  { name: "SLURM_CLUSTER_NAME", contexts: BJS, keepIn: T, value: ({ site }) => text(site.clusterName) },
  { name: "SLURM_SUBMIT_DIR", contexts: BJS, keepIn: T, value: submitDir },
  {
    name: "SLURM_SUBMIT_HOST",
    contexts: BJS,
    keepIn: T,
    value: (i) => text(i.site.submitHost ?? (i.job.submitHost || i.base.SLURM_SUBMIT_HOST)),
  },
  { name: "SLURM_PRIO_PROCESS", contexts: BT, value: ({ base }) => base.SLURM_PRIO_PROCESS ?? "0" },
  {
    name: "SLURM_UMASK",
    contexts: BT,
    keepIn: BT,
    value: ({ spec, site }) => {
      const umask = spec?.umask ?? site.umask;
      return umask === undefined ? undefined : umask.toString(8).padStart(4, "0");
    },
  },
  { name: "SLURM_LABELIO", contexts: T, value: ({ site }) => (site.labelIo === true ? "1" : undefined) },
  // srun's listener (roles/cli/srun-launcher.ts), where the agents report task exits; without one,
  // inherited values (an srun inside a step) are dropped rather than left pointing at nothing
  ...["SLURM_LAUNCH_NODE_IPADDR", "SLURM_SRUN_COMM_HOST"].map((name): EnvRow => ({ name, contexts: T, value: ({ site }) => site.launcher?.host ?? null })),
  ...["SLURM_SRUN_COMM_PORT", "SLURM_STEP_LAUNCHER_PORT"].map((name): EnvRow => ({ name, contexts: T, value: ({ site }) => (site.launcher === undefined ? null : `${site.launcher.port}`) })),
  { name: "SLURM_JOB_UID", contexts: BT, value: ({ job }) => `${job.uid}` },
  { name: "SLURM_JOB_USER", contexts: BT, value: ({ job }) => text(job.user) },
  { name: "SLURM_JOB_GID", contexts: BT, value: ({ job }) => `${job.gid}` },
  { name: "SLURM_JOB_GROUP", contexts: BT, value: ({ job }) => text(job.group) },
  { name: "SLURM_JOB_START_TIME", contexts: BT, value: ({ job }) => count(Math.floor(job.startTime)) },
  {
    name: "SLURM_JOB_END_TIME",
    contexts: BT,
    value: ({ job }) => (job.startTime > 0 ? `${Math.floor(jobEndTime(job))}` : undefined),
  },
  { name: "SLURM_JOB_OVERSUBSCRIBE", contexts: B, value: ({ job }) => overSubscribeEnvText(job) },
  { name: "SLURM_JOB_EXCLUSIVE", contexts: B, value: ({ job }) => exclusiveEnvText(job) },
  { name: "SLURM_NODEID", contexts: BT, value: ({ node }) => `${node?.index ?? 0}` },
  { name: "SLURM_PROCID", contexts: BT, value: ({ task }) => `${task?.taskId ?? 0}` },
  { name: "SLURM_LOCALID", contexts: BT, value: ({ task }) => `${task?.localId ?? 0}` },
  { name: "SLURM_GTIDS", contexts: BT, value: gtids },
  // 26.05+ code also sets it in the batch script, as the batch step id (-5).
  { name: "SLURM_STEP_ID", contexts: BT, value: ({ step }) => `${step?.stepId ?? -5}` },
  { name: "SLURM_STEPID", contexts: T, value: ({ step }) => step?.stepId.toString() },
  { name: "SLURM_STEP_NODELIST", contexts: T, value: ({ step }) => step?.nodelist },
  { name: "SLURM_STEP_NUM_NODES", contexts: T, value: ({ step }) => step?.nodeNames.length.toString() },
  { name: "SLURM_STEP_NUM_TASKS", contexts: T, value: ({ step }) => step?.ntasks.toString() },
  {
    name: "SLURM_STEP_TASKS_PER_NODE",
    contexts: T,
    value: ({ step }) => (step === undefined ? undefined : formatTasksPerNode(step.tasksPerNode)),
  },
  { name: "SLURMD_NODENAME", contexts: BT, value: ({ node }) => node?.name },
  { name: "SLURM_CONF", contexts: BT, keepIn: T, value: ({ site }) => text(site.confPath) },
  { name: "SLURM_TOPOLOGY_ADDR", contexts: BT, value: ({ site }) => site.topology?.addr },
  { name: "SLURM_TOPOLOGY_ADDR_PATTERN", contexts: BT, value: ({ site }) => site.topology?.pattern },
  // The table says "always"; 22.05 left it out while the count was 0 (goldens 039-041).
  { name: "SLURM_RESTART_COUNT", contexts: B, value: ({ job }) => count(job.restarts) },
  { name: "ENVIRONMENT", contexts: B, value: () => "BATCH" },
  { name: "HOSTNAME", contexts: B, value: ({ node }) => node?.name },
  { name: "TMPDIR", contexts: BT, value: ({ site, base }) => site.tmpDir ?? base.TMPDIR ?? "/tmp" },
];

/** gres/shard held on this node (job-env.tsv: set when shards are allocated), removed otherwise. */
function shardsOnNode({ job, node }: EnvInput): EnvValue {
  const share = node === undefined ? undefined : job.alloc.find((a) => a.node === node.name);
  const shards = gresTotalOf(parseGresItems(share?.gres ?? ""), "shard");
  return shards > 0 ? String(shards) : null;
}
