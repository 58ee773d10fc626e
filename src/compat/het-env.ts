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
/** A component's task count when -n was given (SLURM_NTASKS/NPROCS_HET_GROUP_n, as for the job's own). */
type Ntasks = number | undefined;

/** One component's variables, unsuffixed, in Slurm's order; absent values are left out. */
function componentVars(job: Component, ntasks: Ntasks): [string, string][] {
  const vars: [string, string][] = [];
  if (job.account !== "") vars.push(["SLURM_JOB_ACCOUNT", job.account]);
  if (job.alloc.length > 0) vars.push(["SLURM_JOB_CPUS_PER_NODE", formatCpusPerNode(job.alloc.map((a) => a.cpus))]);
  vars.push(["SLURM_JOB_ID", String(job.jobId)], ["SLURM_JOB_NAME", job.name], ["SLURM_JOB_NODELIST", job.nodelist]);
  vars.push(["SLURM_JOB_NUM_NODES", String(job.numNodes)], ["SLURM_JOB_PARTITION", job.partition]);
  if (job.qos !== "") vars.push(["SLURM_JOB_QOS", job.qos]);
  if (job.reservation !== "") vars.push(["SLURM_JOB_RESERVATION", job.reservation]);
  if (ntasks !== undefined && ntasks > 0) vars.push(["SLURM_NTASKS", String(ntasks)], ["SLURM_NPROCS", String(ntasks)]);
  if (job.memPerCpuMib > 0) vars.push(["SLURM_MEM_PER_CPU", String(job.memPerCpuMib)]);
  else if (job.memPerNodeMib > 0) vars.push(["SLURM_MEM_PER_NODE", String(job.memPerNodeMib)]);
  if (job.alloc.length > 0) {
    const perTask = Math.max(1, job.cpusPerTask);
    vars.push(["SLURM_TASKS_PER_NODE", formatTasksPerNode(job.alloc.map((a) => (a.tasks > 0 ? a.tasks : Math.max(1, Math.floor(a.cpus / perTask)))))]);
  }
  return vars;
}

/**
 * The het variables of a batch script, from every component (leader first, offset order) and
 * the task count each asked for with -n (oracle, 22.05: SLURM_NTASKS_HET_GROUP_1=2 for `-N2 -n2`).
 */
export function hetBatchEnv(components: readonly Component[], ntasks: readonly Ntasks[] = []): Record<string, string> {
  assert(components.length > 0, "a het job has a leader");
  const env: Record<string, string> = {};
  components.forEach((job, offset) => {
    assert((job.hetJobOffset ?? 0) === offset, "components come in offset order");
    for (const [name, value] of componentVars(job, ntasks[offset])) {
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
 * runs there), from the allocation's SLURM_JOB_ID_HET_GROUP_N; past the last one, Slurm 22.05's
 * refusal (oracle: `srun --het-group=2` in a 2-component job, exit 1).
 */
export function hetGroupJobId(env: Readonly<Record<string, string | undefined>>, group: number): number | string {
  const size = Number(env.SLURM_HET_SIZE ?? env.SLURM_PACK_SIZE ?? "1");
  const id = env[`SLURM_JOB_ID_HET_GROUP_${group}`];
  if (id !== undefined && /^\d+$/.test(id)) return Number(id);
  if (group === 0 && env.SLURM_HET_SIZE === undefined && env.SLURM_JOB_ID !== undefined) return Number(env.SLURM_JOB_ID);
  const max = Number.isInteger(size) && size > 0 ? size - 1 : 0;
  return `Requested het-group offset exceeds highest hetjob index (${group} > ${max})`;
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
  // the component's own -n when the allocation named it, else what its nodes hold
  const tasks = Number(env[`SLURM_NTASKS${suffix}`] ?? countTasks(out.SLURM_TASKS_PER_NODE ?? ""));
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

/** The job variables salloc gives each component of a het allocation, suffixed (oracle, 22.05). */
const SALLOC_PER_COMPONENT: ReadonlySet<string> = new Set([
  "SLURM_JOBID", "SLURM_JOB_ACCOUNT", "SLURM_JOB_CPUS_PER_NODE", "SLURM_JOB_ID", "SLURM_JOB_NAME", "SLURM_JOB_NODELIST",
  "SLURM_JOB_NUM_NODES", "SLURM_JOB_PARTITION", "SLURM_JOB_QOS", "SLURM_JOB_RESERVATION", "SLURM_NNODES", "SLURM_NODELIST",
  "SLURM_NPROCS", "SLURM_NTASKS", "SLURM_TASKS_PER_NODE", "SLURM_MEM_PER_CPU", "SLURM_MEM_PER_NODE",
]);

/** The unsuffixed SLURM_* variables a het allocation's shell keeps: the rest are per component only. */
const SALLOC_PLAIN: ReadonlySet<string> = new Set(["SLURM_JOB_ID", "SLURM_CLUSTER_NAME", "SLURM_CONF", "SLURM_SUBMIT_DIR", "SLURM_SUBMIT_HOST"]);

/**
 * The environment of salloc's shell for a heterogeneous allocation (oracle, `salloc -n1 : -N2`):
 * the submitter's environment, of the leader's own SLURM_* variables only SLURM_JOB_ID and the
 * site ones, every component's job variables under NAME_HET_GROUP_n and NAME_PACK_GROUP_n, and
 * the component count. `perComponent[n]` are the SLURM_* variables salloc sets for component n alone.
 */
export function hetSallocEnv(submitEnv: Readonly<Record<string, string>>, perComponent: readonly Readonly<Record<string, string>>[]): Record<string, string> {
  assert(perComponent.length > 0, "a het allocation has a leader");
  const env: Record<string, string> = { ...submitEnv };
  for (const [name, value] of Object.entries(perComponent[0] ?? {})) if (SALLOC_PLAIN.has(name)) env[name] = value;
  perComponent.forEach((vars, offset) => {
    for (const [name, value] of Object.entries(vars)) {
      if (!SALLOC_PER_COMPONENT.has(name)) continue;
      env[`${name}_PACK_GROUP_${offset}`] = value;
      env[`${name}_HET_GROUP_${offset}`] = value;
    }
  });
  env.SLURM_PACK_SIZE = String(perComponent.length);
  env.SLURM_HET_SIZE = String(perComponent.length);
  return env;
}
