/**
 * @module cli/scontrol-jobs
 * scontrol's job commands over the CliPort: `show job [id]`, hold/uhold/
 * release/requeue/requeuehold/suspend/resume, and `update JobId=...`. The
 * controller answers per job with Slurm's error text; scontrol prints it as
 * "<error> for job <id>" (hold/release also add "slurm_suspend error: ..."),
 * or "<id>: <error>" per array element when one request names several jobs.
 */
import type { Plain } from "../lib/plain.ts";
import type { JobResult } from "../net/gen/spur/v1/controller_pb.ts";
import type { CliPort } from "../net/ctl-port.ts";
import { parseArraySpec } from "../compat/array-spec.ts";
import type { Job } from "../compat/format/job-values.ts";
import { formatJobRecord, nodeGpuTypes } from "../compat/format/scontrol-show-job.ts";
import { heldGpuType } from "../compat/gpu-types.ts";
import { isJobIdText, parseJobUpdate, splitJobIds } from "../compat/format/scontrol-update.ts";
import { parseTimeLimit } from "../compat/parse-time.ts";

/** What one scontrol command printed and whether it failed. */
export interface Outcome {
  stdout: string;
  stderr: string;
  failed: boolean;
}

export const outcome = (stdout = "", stderr = "", failed = false): Outcome => ({ stdout, stderr, failed });

export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export interface ViewFlags {
  oneLiner: boolean;
  detail: number;
  /** -a/--all: include hidden partitions. */
  all?: boolean;
}

/** Meta record first, then the other records of an array by task id, highest first. */
function arrayOrder(a: Job, b: Job): number {
  const meta = (j: Job): number => (j.jobId === j.arrayJobId ? 0 : 1);
  return meta(a) - meta(b) || b.arrayTaskId - a.arrayTaskId || a.jobId - b.jobId;
}

function pendingTasks(job: Job): number[] {
  if (job.arrayTaskStr === "") return [];
  const spec = parseArraySpec(job.arrayTaskStr, Number.MAX_SAFE_INTEGER);
  return spec.ok ? spec.value.taskIds : [];
}

/**
 * -d shows the GPUs a job holds by their node's type, which the controller records when the job
 * starts (NodeAlloc.gpuType); a record from before that holds GPUs without it costs one node
 * listing (none asked otherwise). Without it (the call failed) the request's type is shown.
 */
async function gpuTypesFor(port: CliPort, jobs: readonly Job[], v: ViewFlags): Promise<((node: string, held: readonly number[]) => string | undefined) | undefined> {
  if (v.detail === 0 || !jobs.some((j) => j.alloc.some((a) => a.gpuIndices.length > 0 && a.gpuType === undefined))) return undefined;
  try {
    const types = nodeGpuTypes((await port.ctl.listNodes()).nodes);
    return (node, held) => heldGpuType(types.get(node), held);
  } catch {
    return undefined;
  }
}

/** `scontrol show job [id]`. */
export async function showJob(port: CliPort, idText: string | undefined, v: ViewFlags): Promise<Outcome> {
  const het = idText === undefined ? null : /^(\d+)\+(\d+)$/.exec(idText.trim());
  if (het !== null) return showHetComponent(port, Number(het[1]), Number(het[2]), v);
  const m = idText === undefined ? undefined : /^(\d+)(?:_(\d+))?$/.exec(idText.trim());
  // a word that is no job id at all is refused before any lookup, under scontrol's printer (x-err-scontrol-show-job-garbage)
  if (m === null) return outcome("", "scontrol_print_job error: Invalid job id specified\n", true);
  let jobs: Job[];
  try {
    // One job: the controller looks it up by id (cost of the answer, not of the queue).
    jobs = (await port.ctl.listJobs({ includeSteps: false, ...(m === undefined ? {} : { jobIds: [Number(m[1])] }) })).jobs;
  } catch (e) {
    return outcome("", `slurm_load_jobs error: ${messageOf(e)}\n`, true);
  }
  const gpuTypeOf = await gpuTypesFor(port, jobs, v);
  const opts = { now: Math.floor(port.now()), oneLiner: v.oneLiner, detail: v.detail > 0, ...(gpuTypeOf === undefined ? {} : { gpuTypeOf }) };
  if (m === undefined) {
    if (jobs.length === 0) return outcome("No jobs in the system\n");
    return outcome(jobs.map((j) => formatJobRecord(j, opts)).join(""));
  }
  const invalid = outcome("", "slurm_load_jobs error: Invalid job id specified\n", true);
  const jobId = Number(m[1]);
  const family = jobs.filter((j) => j.jobId === jobId || j.arrayJobId === jobId || j.hetJobId === jobId).sort(arrayOrder);
  if (family.length === 0) return invalid;
  if (m[2] === undefined) return outcome(family.map((j) => formatJobRecord(j, opts)).join(""));
  const task = Number(m[2]);
  const element = family.find((j) => j.arrayJobId === jobId && j.arrayTaskId === task);
  if (element) return outcome(formatJobRecord(element, opts));
  const rest = family.find((j) => j.arrayJobId === jobId && pendingTasks(j).includes(task));
  if (rest) return outcome(formatJobRecord(rest, { ...opts, shownTask: task }));
  return outcome(`Job ${jobId}_${task} not found\n`, "", true);
}

/** `scontrol show job 17+1`: that component of heterogeneous job 17. */
async function showHetComponent(port: CliPort, leaderId: number, offset: number, v: ViewFlags): Promise<Outcome> {
  let jobs: Job[];
  try {
    jobs = (await port.ctl.listJobs({ includeSteps: false, jobIds: [leaderId] })).jobs;
  } catch (e) {
    return outcome("", `slurm_load_jobs error: ${messageOf(e)}\n`, true);
  }
  const one = jobs.find((j) => j.hetJobId === leaderId && (j.hetJobOffset ?? 0) === offset);
  if (one === undefined) return outcome("", "slurm_load_jobs error: Invalid job id specified\n", true);
  const gpuTypeOf = await gpuTypesFor(port, [one], v);
  return outcome(formatJobRecord(one, { now: Math.floor(port.now()), oneLiner: v.oneLiner, detail: v.detail > 0, ...(gpuTypeOf === undefined ? {} : { gpuTypeOf }) }));
}

/** Print per-job results the way scontrol does for one request. */
function resultLines(id: string, results: Plain<JobResult>[], perror: string | undefined): Outcome {
  const failures = results.filter((r) => r.error !== "");
  if (failures.length === 0) return outcome();
  if (results.length === 1) {
    const error = (failures[0] as Plain<JobResult>).error;
    const tail = perror === undefined ? "" : `${perror}: ${error}\n`;
    return outcome("", `${error} for job ${id}\n${tail}`, true);
  }
  return outcome("", failures.map((r) => `${r.jobId}: ${r.error}\n`).join(""), true);
}

async function oneRequest(port: CliPort, id: string, action: string, fields: Record<string, string>, perror?: string): Promise<Outcome> {
  return oneRequestIds(port, id, [id], action, fields, perror);
}

async function oneRequestIds(port: CliPort, id: string, jobIds: string[], action: string, fields: Record<string, string> = {}, perror?: string): Promise<Outcome> {
  try {
    const resp = await port.ctl.updateJob({ jobIds, action, fields });
    return resultLines(id, resp.results, perror);
  } catch (e) {
    const tail = perror === undefined ? "" : `${perror}: ${messageOf(e)}\n`;
    return outcome("", `${messageOf(e)} for job ${id}\n${tail}`, true);
  }
}

export function merge(parts: Outcome[]): Outcome {
  return parts.reduce((a, b) => outcome(a.stdout + b.stdout, a.stderr + b.stderr, a.failed || b.failed), outcome());
}

/** Ids of the pending jobs named `name` (hold/release Name=...). */
async function idsByName(port: CliPort, name: string): Promise<string[]> {
  const jobs = (await port.ctl.listJobs({})).jobs;
  return jobs.filter((j) => j.name === name && j.state.toUpperCase() === "PENDING").map((j) => String(j.jobId));
}

/** hold, uhold, release, requeue, requeuehold, suspend, resume on each argument. */
export async function jobAction(port: CliPort, action: string, args: readonly string[]): Promise<Outcome> {
  const perror = ["hold", "uhold", "release"].includes(action) ? "slurm_suspend error" : undefined;
  const parts: Outcome[] = [];
  for (const raw of args) {
    if (/^(incomplete|state=specialexit)$/i.test(raw)) continue; // requeue flags
    const arg = raw.replace(/^(jobid|job)=/i, "");
    if (/^name=/i.test(arg) && perror !== undefined) {
      for (const id of await idsByName(port, arg.slice(5))) parts.push(await oneRequest(port, id, action, {}, perror));
      continue;
    }
    const ids = splitJobIds(arg);
    if (ids.length === 0 || !ids.every(isJobIdText)) {
      const tail = perror === undefined ? "" : `${perror}: Invalid job id specified\n`;
      parts.push(outcome("", `Invalid job id specified for job ${arg}\n${tail}`, true));
      continue;
    }
    for (const id of ids) parts.push(await oneRequest(port, id, action, {}, perror));
  }
  return merge(parts);
}

/** `top JOB_LIST`: one request for the whole list (the controller moves the jobs together); errors name the list as given. */
export async function topJobs(port: CliPort, arg: string): Promise<Outcome> {
  const ids = splitJobIds(arg);
  if (ids.length === 0 || !ids.every(isJobIdText)) return outcome("", `Invalid job id specified for job ${arg}\n`, true);
  return oneRequestIds(port, arg, ids, "top");
}

/**
 * TimeLimit=-N: scontrol reads the job's limit itself and refuses a decrement larger than it
 * (the first job's, as Slurm checks the one record it loaded); undefined when fine or not asked.
 */
async function decrementPastLimit(port: CliPort, jobIds: readonly string[], value: string | undefined): Promise<string | undefined> {
  if (value === undefined || !value.startsWith("-") || !/^\d+$/.test(jobIds[0] ?? "")) return undefined;
  const by = parseTimeLimit(value.slice(1));
  if (!by.ok || by.value === undefined) return undefined;
  let limit: number | undefined;
  try {
    limit = (await port.ctl.listJobs({ jobIds: [Number(jobIds[0])] })).jobs[0]?.timeLimitMin;
  } catch {
    return undefined;
  }
  if (limit === undefined || by.value <= limit) return undefined;
  return `scontrol: error: TimeLimit decrement larger than current time limit (${by.value} > ${limit})\n`;
}

/** `update JobId=... Key=Value ...` (JobName= without JobId= selects jobs by name: the caller's, or UserID='s). */
export async function updateJob(port: CliPort, args: readonly string[]): Promise<Outcome> {
  const known = port.userKnown?.bind(port) ?? (() => true);
  const parsed = parseJobUpdate(args, Math.floor(port.now()), known);
  if (!parsed.ok) return outcome("", `${parsed.error.message}\n`, true);
  if (parsed.value.abandoned !== undefined) return outcome("", `${parsed.value.abandoned}\n`, false);
  const warned = outcome("", parsed.value.warnings.map((w) => `${w}\n`).join(""), false);
  let { jobIds } = parsed.value;
  const { userId } = parsed.value;
  const fields = { ...parsed.value.fields };
  if (jobIds.length === 0 && fields["Name"] !== undefined) {
    const name = fields["Name"];
    delete fields["Name"];
    const jobs = (await port.ctl.listJobs({})).jobs;
    const uid = port.invoker.uid;
    const uidOf = userId === undefined ? undefined : (port.uidOf?.(userId) ?? (/^\d+$/.test(userId) ? Number(userId) : undefined));
    const mine = (j: Job) => (userId === undefined ? uid === 0 || j.uid === uid : j.uid === uidOf || j.user === userId);
    jobIds = jobs.filter((j) => j.name === name && mine(j)).map((j) => String(j.jobId));
    if (jobIds.length === 0) {
      const who = userId === undefined ? "" : `user ID ${uidOf ?? userId} and `;
      return merge([warned, outcome("", `scontrol: error: No jobs with ${who}name '${name}'\n`, true)]);
    }
  }
  if (jobIds.length === 0) return merge([warned, outcome("", "No job id specified\n", true)]);
  const past = await decrementPastLimit(port, jobIds, fields["TimeLimit"]);
  if (past !== undefined) return merge([warned, outcome("", past, true)]);
  const parts: Outcome[] = [warned];
  for (const id of jobIds) parts.push(await oneRequest(port, id, "update", fields));
  return merge(parts);
}
