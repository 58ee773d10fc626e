/**
 * @module compat/het-env
 * The variables a heterogeneous job's batch script gets besides the ordinary ones (those
 * describe the leader, component 0): for every component n, a copy of its job variables
 * under NAME_HET_GROUP_n (and the older NAME_PACK_GROUP_n, which Slurm 22.05 still sets),
 * and the component count in SLURM_HET_SIZE / SLURM_PACK_SIZE. SLURM_JOB_ID stays the
 * leader's. Facts: /work/shared/slurm-surface/job-env.tsv (SLURM_*_HET_GROUP_<n>), Slurm's
 * slurmctld job_scheduler.c (the list of variables per component).
 */
import type { Plain } from "../lib/plain.ts";
import type { JobInfo } from "../net/gen/spur/v1/types_pb.ts";
import { assert } from "../lib/assert.ts";
import { formatCpusPerNode, formatTasksPerNode } from "./job-env-rows.ts";

type Component = Plain<JobInfo>;

/** One component's variables, unsuffixed, in Slurm's order; absent values are left out. */
function componentVars(job: Component): [string, string][] {
  const vars: [string, string][] = [];
  if (job.account !== "") vars.push(["SLURM_JOB_ACCOUNT", job.account]);
  if (job.alloc.length > 0) vars.push(["SLURM_JOB_CPUS_PER_NODE", formatCpusPerNode(job.alloc.map((a) => a.cpus))]);
  vars.push(["SLURM_JOB_ID", String(job.jobId)], ["SLURM_JOB_NAME", job.name], ["SLURM_JOB_NODELIST", job.nodelist]);
  vars.push(["SLURM_JOB_NUM_NODES", String(job.numNodes)], ["SLURM_JOB_PARTITION", job.partition]);
  if (job.qos !== "") vars.push(["SLURM_JOB_QOS", job.qos]);
  if (job.reservation !== "") vars.push(["SLURM_JOB_RESERVATION", job.reservation]);
  if (job.memPerCpuMib > 0) vars.push(["SLURM_MEM_PER_CPU", String(job.memPerCpuMib)]);
  else if (job.memPerNodeMib > 0) vars.push(["SLURM_MEM_PER_NODE", String(job.memPerNodeMib)]);
  if (job.alloc.length > 0) {
    const perTask = Math.max(1, job.cpusPerTask);
    vars.push(["SLURM_TASKS_PER_NODE", formatTasksPerNode(job.alloc.map((a) => (a.tasks > 0 ? a.tasks : Math.max(1, Math.floor(a.cpus / perTask)))))]);
  }
  return vars;
}

/** The het variables of a batch script, from every component (leader first, offset order). */
export function hetBatchEnv(components: readonly Component[]): Record<string, string> {
  assert(components.length > 0, "a het job has a leader");
  const env: Record<string, string> = {};
  components.forEach((job, offset) => {
    assert((job.hetJobOffset ?? 0) === offset, "components come in offset order");
    for (const [name, value] of componentVars(job)) {
      env[`${name}_PACK_GROUP_${offset}`] = value;
      env[`${name}_HET_GROUP_${offset}`] = value;
    }
  });
  env.SLURM_PACK_SIZE = String(components.length);
  env.SLURM_HET_SIZE = String(components.length);
  return env;
}

/**
 * srun --het-group=N inside a heterogeneous allocation: the job id of component N (the step
 * runs there), from the allocation's SLURM_JOB_ID_HET_GROUP_N; Slurm's refusal past the last one.
 */
export function hetGroupJobId(env: Readonly<Record<string, string | undefined>>, group: number): number | string {
  const size = Number(env.SLURM_HET_SIZE ?? env.SLURM_PACK_SIZE ?? "1");
  const id = env[`SLURM_JOB_ID_HET_GROUP_${group}`];
  if (id !== undefined && /^\d+$/.test(id)) return Number(id);
  if (group === 0 && env.SLURM_HET_SIZE === undefined && env.SLURM_JOB_ID !== undefined) return Number(env.SLURM_JOB_ID);
  const max = Number.isInteger(size) && size > 0 ? size - 1 : 0;
  return `Attempt to run a job step with het group value of ${group}, but the job allocation has maximum value of ${max}`;
}

/** The --het-group / --pack-group value on srun's command line (before the command), if any. */
export function hetGroupArg(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (!a.startsWith("-")) return undefined;
    const m = /^--(?:het|pack)-group(?:=(.*))?$/.exec(a);
    if (m !== null) return m[1] ?? argv[i + 1];
  }
  return undefined;
}

/**
 * srun --het-group=N reads component N's copies of the job variables (NAME_HET_GROUP_N) as if
 * they were the job's own, as Slurm's srun does when it reads its input variables.
 */
export function hetGroupEnv(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const group = hetGroupArg(argv);
  if (group === undefined || !/^\d+$/.test(group)) return { ...env };
  const suffix = `_HET_GROUP_${group}`;
  const out: Record<string, string | undefined> = { ...env };
  let found = false;
  for (const [key, value] of Object.entries(env)) {
    if (!key.endsWith(suffix) || key === `SLURM_JOB_ID${suffix}`) continue;
    out[key.slice(0, -suffix.length)] = value;
    found = true;
  }
  if (!found) return out;
  // the component's shape, not the leader's: its node count, node list and task count
  out.SLURM_NNODES = out.SLURM_JOB_NUM_NODES;
  out.SLURM_NODELIST = out.SLURM_JOB_NODELIST;
  const tasks = countTasks(out.SLURM_TASKS_PER_NODE ?? "");
  for (const name of ["SLURM_NTASKS", "SLURM_NPROCS"]) {
    if (tasks > 0) out[name] = String(tasks);
    else delete out[name];
  }
  return out;
}

/** The sum of a compressed per-node count ("2(x3),1" → 7); 0 when it cannot be read. */
export function countTasks(perNode: string): number {
  let total = 0;
  for (const part of perNode.split(",")) {
    const m = /^(\d+)(?:\(x(\d+)\))?$/.exec(part);
    if (m === null) return 0;
    total += Number(m[1]) * Number(m[2] ?? "1");
  }
  return total;
}

/**
 * salloc's heterogeneous allocation: each component's SLURM_* variables (as salloc builds them
 * for one job) under NAME_HET_GROUP_n and NAME_PACK_GROUP_n, and the component count. The
 * unsuffixed variables stay the leader's (the caller sets them).
 */
export function hetSallocEnv(perComponent: readonly Readonly<Record<string, string>>[]): Record<string, string> {
  assert(perComponent.length > 0, "a het allocation has a leader");
  const env: Record<string, string> = {};
  perComponent.forEach((vars, offset) => {
    for (const [name, value] of Object.entries(vars)) {
      if (!name.startsWith("SLURM_") || name === "SLURM_CONF" || name === "SLURM_CLUSTER_NAME") continue;
      env[`${name}_PACK_GROUP_${offset}`] = value;
      env[`${name}_HET_GROUP_${offset}`] = value;
    }
  });
  env.SLURM_PACK_SIZE = String(perComponent.length);
  env.SLURM_HET_SIZE = String(perComponent.length);
  return env;
}
