/**
 * @module sched/model/update-fields
 * `scontrol update JobId=N Key=Value ...`: the keys Slurm accepts (case-
 * insensitive), which of them need the job to be pending, and which need an
 * administrator (raising a time limit, setting a priority). All keys are checked
 * before any is applied, so a bad key changes nothing.
 */
import type { ClusterState, JobRecord } from "./types.ts";
import type { ApplyEvent } from "./apply-result.ts";
import { parseTimeLimit, parseBeginTime } from "../../compat/parse-time.ts";
import { parseDependency } from "../../compat/dependency.ts";
import { setStdPaths } from "./std-paths.ts";
import { formatArrayTasks } from "../../compat/array-spec.ts";
import { parseTresBind } from "../../compat/gpu-bind.ts";
import { jobPartitions } from "./job-partitions.ts";
import { internJob } from "./intern.ts";
import { REQUEST_SETTERS, type UpdateCtx } from "./update-request.ts";
import { knownFeatures } from "./apply-submit.ts";
import { expandHostlist } from "../../compat/hostlist.ts";

interface Outcome {
  error: string;
  code: number;
  events: ApplyEvent[];
}

type Setter = (job: JobRecord, value: string, ctx: Ctx) => string;

type Ctx = UpdateCtx;

const PENDING_ONLY = new Set([
  "partition", "numnodes", "numtasks", "reqnodelist", "nodelist", "excnodelist", "features", "dependency", "starttime", "begintime",
  "minmemorynode", "minmemorycpu", "mincpusnode", "numcpus", "mintmpdisknode", "cpuspertask", "taskspernode", "reqsockets", "reqcores", "reqthreads",
  "contiguous", "oversubscribe", "workdir", "stdout", "prefer", "wckey", "gres", "account", "qos", "tresbind",
  "reboot", "resetaccruetime",
]);

const SETTERS: Record<string, Setter> = {
  ...REQUEST_SETTERS,
  timelimit: (job, v, ctx) => {
    // +N / -N change the limit by N (an unlimited one stays unlimited); scontrol refuses a decrement past it
    const sign = v.startsWith("+") ? 1 : v.startsWith("-") ? -1 : 0;
    const parsed = parseTimeLimit(sign === 0 ? v : v.slice(1));
    if (!parsed.ok || (sign !== 0 && parsed.value === undefined)) return "Invalid time specification";
    const cur = job.info.timeLimitMin;
    let next = parsed.value;
    if (sign !== 0 && next !== undefined) {
      next = cur === undefined ? undefined : cur + sign * next;
      if (next !== undefined && next <= 0) return "Invalid time specification";
    }
    const raising = cur !== undefined && (next === undefined || next > cur);
    if (raising && !ctx.admin) return "Access/permission denied";
    job.info.timeLimitMin = next;
    if (job.info.state === "RUNNING") job.info.endTime = next === undefined ? 0 : job.info.startTime + next * 60;
    return "";
  },
  partition: (job, v, ctx) => {
    // a list (Partition=a,b) names partitions that must all exist, as at submission
    const names = jobPartitions(v);
    if (names.length === 0 || !names.every((n) => ctx.state.partitions.some((p) => p.info.name === n))) return "Invalid partition name specified";
    // the list is rebuilt from the names (oracle 22.05: Partition=gpu,,debug reads gpu,debug)
    job.info.partition = names.join(",");
    job.spec.partition = names.join(",");
    return "";
  },
  name: (job, v) => {
    job.info.name = v;
    job.spec.name = v;
    setStdPaths(job, job.info.batchHost);
    return "";
  },
  // --tres-bind's grammar (gres/gpu:[verbose,]TYPE); the job's GPU binding follows, as at submission. Empty clears it.
  tresbind: (job, v) => {
    if (v === "") {
      job.info.tresBind = "";
      job.spec.gpuBind = "";
      return "";
    }
    const parsed = parseTresBind(v);
    if (!parsed.ok) return parsed.error.message;
    job.spec.gpuBind = parsed.value;
    job.info.tresBind = `gres/gpu:${parsed.value}`;
    return "";
  },
  comment: (job, v) => {
    job.info.comment = v;
    return "";
  },
  nice: (job, v, ctx) => {
    const n = Number(v);
    if (!Number.isInteger(n)) return "Invalid nice value";
    if (n < 0 && !ctx.admin) return "Access/permission denied";
    if (job.info.priority > 0) job.info.priority = Math.max(1, job.info.priority + job.info.nice - n);
    job.info.nice = n;
    return "";
  },
  priority: (job, v, ctx) => {
    if (!ctx.admin) return "Access/permission denied";
    // a held job is released with `scontrol release`, not by a priority (oracle 22.05, even for root)
    if (job.info.state === "PENDING" && job.info.priority === 0) return "Job is in held state, pending scheduler release";
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) return "Invalid priority";
    job.info.priority = n;
    // Slurm keeps an administrator's value as it is; the multifactor plugin no longer recomputes it.
    job.priorityFixed = n > 0;
    return "";
  },
  numnodes: (job, v) => setCount(job, v, "nodesMin"),
  numtasks: (job, v) => setCount(job, v, "ntasks"),
  reqnodelist: (job, v, ctx) => {
    if (!namesNodes(ctx.state, v)) return "Invalid node name specified";
    job.spec.nodelist = v;
    job.info.reqNodelist = v;
    return "";
  },
  excnodelist: (job, v, ctx) => {
    if (!namesNodes(ctx.state, v)) return "Invalid node name specified";
    job.spec.exclude = v;
    job.info.excNodelist = v;
    return "";
  },
  features: (job, v, ctx) => {
    // as at submission: every feature the constraint names is some node's
    if (!knownFeatures(ctx.state, v)) return "Invalid feature specification";
    job.spec.constraint = v;
    job.info.features = v;
    return "";
  },
  dependency: (job, v) => {
    if (v && !parseDependency(v).ok) return "Job dependency problem";
    job.spec.dependency = v;
    job.info.dependency = v;
    return "";
  },
  starttime: (job, v, ctx) => {
    const t = parseBeginTime(v, ctx.at);
    if (!t.ok) return "Invalid time specification";
    job.spec.beginTime = t.value;
    job.info.eligibleTime = Math.max(job.info.submitTime, t.value);
    return "";
  },
  account: (job, v) => {
    job.info.account = v;
    job.spec.account = v;
    return "";
  },
  qos: (job, v) => {
    job.info.qos = v;
    job.spec.qos = v;
    return "";
  },
  // The most tasks of an array that run at once (the %N of --array); 0 = no limit. Kept by every
  // record of the array; the pending remainder's task string shows it (`_[1-10%2]`).
  arraytaskthrottle: (job, v) => {
    const n = Number(v);
    if (v.trim() === "" || !Number.isInteger(n) || n < 0) return "Invalid ArrayTaskThrottle value";
    // not an array: nothing to limit, and Slurm says nothing (oracle 22.05, exit 0)
    if (job.info.arrayJobId === 0) return "";
    job.arrayThrottle = n;
    job.info.arrayMaxTasks = n;
    if (job.arrayPending.length > 0) job.info.arrayTaskStr = formatArrayTasks(job.arrayPending, n);
    return "";
  },
};

/** Whether a host list (empty: none) names only nodes of the cluster. */
function namesNodes(state: ClusterState, list: string): boolean {
  if (list === "") return true;
  const names = expandHostlist(list);
  return names.ok && names.value.every((n) => state.nodes.has(n));
}

const ALIASES: Record<string, string> = {
  jobname: "name", nodelist: "reqnodelist", begintime: "starttime", eligibletime: "starttime", constraint: "features", constraints: "features",
  shared: "oversubscribe", mincpus: "mincpusnode",
};

function setCount(job: JobRecord, v: string, key: "nodesMin" | "ntasks"): string {
  const n = Number(v.split("-")[0]);
  if (!Number.isInteger(n) || n < 1) return "Invalid node count specified";
  job.spec[key] = n;
  if (key === "nodesMin") {
    job.info.numNodes = n;
    delete job.info.nodeCountEstimate; // squeue lists the count given now
    delete job.nodesNeeded; // the new count is the job's own
  } else job.info.numTasks = n;
  return "";
}

export function applyFieldUpdates(state: ClusterState, job: JobRecord, fields: Record<string, string>, admin: boolean, at: number): Outcome {
  const ctx: Ctx = { state, admin, at };
  const plan: [Setter, string][] = [];
  for (const [rawKey, value] of Object.entries(fields)) {
    const lower = rawKey.toLowerCase();
    const key = ALIASES[lower] ?? lower;
    const setter = SETTERS[key];
    if (setter === undefined) return { error: `Update of this parameter is not supported: ${rawKey}=${value}`, code: 2035, events: [] };
    if ((PENDING_ONLY.has(key) || PENDING_ONLY.has(lower)) && job.info.state !== "PENDING") {
      return { error: "Job is no longer pending execution", code: 2020, events: [] };
    }
    plan.push([setter, value]);
  }
  // Apply on a copy first so one bad value leaves the job untouched.
  const trial = structuredClone(job);
  for (const [setter, value] of plan) {
    const error = setter(trial, value, ctx);
    if (error) return { error, code: 2035, events: [] };
  }
  job.info = trial.info;
  job.spec = trial.spec;
  internJob(job); // the trial copy's strings and environment: share them again (sched/model/intern.ts)
  job.arrayThrottle = trial.arrayThrottle;
  if (trial.priorityFixed !== undefined) job.priorityFixed = trial.priorityFixed;
  return { error: "", code: 0, events: [] };
}
