/**
 * @module cli/squeue
 * `squeue`: argv + env + the controller's job list in, Slurm 22.05's exact
 * text out. Options and formats are tables (compat/format/squeue-*); this
 * file only sequences them: parse, load, select, sort, print. Controller
 * failures print Slurm's `slurm_load_jobs error: ...` and exit 1.
 */
import { formatCtime } from "../compat/format-time.ts";
import { runsBatchScript } from "../sched/model/het.ts";
import {
  type FormatItem,
  lineRenderer,
  parseLetterFormat,
  parseNameFormat,
  type ParsedFormat,
  renderLine,
} from "../compat/format/format-spec.ts";
import type { Job, JobRow } from "../compat/format/job-values.ts";
import { squeueJson } from "../compat/format/json-jobs.ts";
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { ALL_FORMAT } from "../compat/format/squeue-fields.ts";
import { jobColumn, jobLetter, jobName } from "../compat/format/squeue-fields-long.ts";
import { parseSqueueArgs, type SqueueParams } from "../compat/format/squeue-options.ts";
import {
  combinePendingArrayTasks,
  expandArrayRecord,
  type JobSelection,
  selectJob,
  singleJobLoadOrder,
} from "../compat/format/squeue-select.ts";
import { parseJobSort, type SortItem, sortJobs } from "../compat/format/squeue-sort.ts";
import { resetTimeMemo } from "../compat/format/time-memo.ts";
import { selectStep, sortSteps, stepColumn, stepLetter, stepName, type StepRow } from "../compat/format/squeue-steps.ts";
import type { ListJobsResponse } from "../net/gen/spur/v1/controller_pb.ts";
import type { Plain } from "../lib/plain.ts";
import { type CliPort, type CliResult, RpcError } from "../net/ctl-port.ts";
import { withTimeFormat } from "../compat/format-time.ts";

const DEFAULT_FORMAT = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
const LONG_FORMAT = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
const STEPS_FORMAT = "%.15i %.8j %.9P %.8u %.9M %N";

interface Output {
  stdout: string;
  stderr: string;
}

/** Parse the -o/-O/default format; unknown fields are reported on stderr. */
function buildFormat(p: SqueueParams, out: Output): ParsedFormat {
  const steps = p.steps;
  let parsed: ParsedFormat;
  if (p.format === undefined && p.formatLong !== undefined) {
    parsed = parseNameFormat(p.formatLong, steps ? stepName : jobName);
  } else {
    const text = p.format ?? (steps ? STEPS_FORMAT : p.long ? LONG_FORMAT : DEFAULT_FORMAT);
    parsed = parseLetterFormat(text, steps ? stepLetter : jobLetter, { allFormat: ALL_FORMAT });
  }
  const what = steps ? "job step format" : "job format";
  for (const bad of parsed.invalid) out.stderr += `squeue: error: Invalid ${what} specification: ${bad}\n`;
  return parsed;
}

function loadErrorText(e: unknown): string {
  if (e instanceof RpcError && e.code === "unavailable") return "Unable to contact slurm controller (connect failure)";
  return e instanceof Error ? e.message : String(e);
}

/** -v: the parameter dump Slurm prints before running. */
function optionsDump(p: SqueueParams, format: string | undefined): string {
  const s = (x: string | undefined): string => x ?? "(null)";
  const b = (x: boolean): string => (x ? "true" : "false");
  const lines = [
    "-----------------------------",
    `all         = ${b(p.all)}`,
    `array       = ${b(p.array)}`,
    "federation  = false",
    `format      = ${s(format)}`,
    "iterate     = 0",
    `job_flag    = ${p.jobsFlag ? 1 : 0}`,
    `jobs        = ${s(p.jobs?.map((j) => (j.taskId === undefined ? `${j.jobId}` : `${j.jobId}_${j.taskId}`)).join(","))}`,
    `licenses    = ${s(p.licenses?.join(","))}`,
    "local       = false",
    `names       = ${s(p.names?.join(","))}`,
    `nodes       = ${p.nodes?.join(",") ?? ""}`,
    `partitions  = ${s(p.partitions?.join(","))}`,
    `priority    = ${b(p.priority)}`,
    `reservation = ${s(p.reservation)}`,
    "sibling      = false",
    `sort        = ${s(p.sort)}`,
    `start_flag  = ${p.start ? 1 : 0}`,
    `states      = ${s(p.statesText)}`,
    `step_flag   = ${p.steps ? 1 : 0}`,
    `steps       = ${s(p.stepList?.join(","))}`,
    `users       = ${s(p.users?.join(","))}`,
    `verbose     = ${p.verbose}`,
    "-----------------------------",
    "",
    "",
  ];
  return `${lines.join("\n")}\n`;
}

/** The filters as one fixed-shape object (absent = undefined), cheap to test per record. */
function selection(p: SqueueParams): JobSelection {
  return {
    jobs: p.jobs,
    accounts: p.accounts,
    qos: p.qos,
    states: p.states,
    nodes: p.nodes,
    users: p.users,
    reservation: p.reservation,
    names: p.names,
    partitions: p.partitions,
    licenses: p.licenses,
  };
}

/** -P: one record per partition of a multi-partition job (all tiers equal here). */
function sortItems(jobs: readonly Job[], p: SqueueParams): SortItem[] {
  if (!p.priority) return jobs.map((job) => ({ job, partPrio: 0 }));
  return jobs.flatMap((job) =>
    job.partition
      .split(",")
      .filter((part) => p.partitions === undefined || p.partitions.includes(part))
      .map((partition) => ({ job: { ...job, partition }, partPrio: 1 })),
  );
}

function printJobs(resp: Plain<ListJobsResponse>, p: SqueueParams, items: readonly FormatItem[], now: number, out: Output): number {
  const one = p.jobs?.length === 1 ? p.jobs[0] : undefined;
  const base = one === undefined ? resp.jobs : singleJobLoadOrder(resp.jobs, one.jobId);
  const sel = selection(p);
  const picked: Job[] = [];
  for (const j of base) {
    const kept = selectJob(j, sel);
    if (kept !== undefined) picked.push(kept);
  }
  const combined = p.array ? picked : combinePendingArrayTasks(picked);
  if (!p.noHeader) out.stdout += renderLine(items, jobColumn, undefined);
  const sortKeys = parseJobSort(p.sort ?? "P,t,-p");
  if (!sortKeys.ok) {
    out.stderr += `squeue: error: ${sortKeys.error.message}\n`;
    return 1;
  }
  const render = lineRenderer(items, jobColumn);
  const lines: string[] = [];
  for (const item of sortJobs(sortItems(combined, p), sortKeys.value, now)) {
    const records = p.array ? expandArrayRecord(item.job) : [item.job];
    for (const job of records) {
      const row: JobRow = { job, now, cluster: resp.clusterName };
      lines.push(render(row));
    }
  }
  out.stdout += lines.join("");
  return 0;
}

const BATCH_STEP = -5;

/** A running batch job's script as the step squeue -s shows: <job>.batch on the batch host. */
function batchStepOf(job: Plain<ListJobsResponse>["jobs"][number]): StepRow["step"] {
  return {
    jobId: job.jobId, stepId: BATCH_STEP, name: "batch", state: "RUNNING", nodelist: job.batchHost, ntasks: 1,
    cpus: job.alloc[0]?.cpus ?? 1, startTime: job.startTime, endTime: 0, exitCode: 0, exitSignal: 0, alloc: [], tres: "",
  };
}

function printSteps(resp: Plain<ListJobsResponse>, p: SqueueParams, items: readonly FormatItem[], now: number, out: Output): number {
  const sel = { jobs: p.jobs, steps: p.stepList, partitions: p.partitions, nodes: p.nodes, users: p.users };
  const rows: StepRow[] = [];
  // Slurm lists the steps that are running now, a running batch job's script as <job>.batch
  // among them (x-squeue-steps); steps of ended jobs are accounting's (sacct)
  for (const job of resp.jobs) {
    if (job.state !== "RUNNING" && job.state !== "SUSPENDED") continue;
    const live = job.steps.filter((s) => s.state === "RUNNING" || s.state === "SUSPENDED");
    const batch = runsBatchScript(job) && !live.some((s) => s.stepId === BATCH_STEP) ? [batchStepOf(job)] : [];
    for (const step of [...batch, ...live]) {
      const row: StepRow = { step, job, now };
      if (selectStep(row, sel)) rows.push(row);
    }
  }
  if (!p.noHeader) out.stdout += renderLine(items, stepColumn, undefined);
  const render = lineRenderer(items, stepColumn);
  out.stdout += sortSteps(rows).map((row) => render(row)).join("");
  return 0;
}

/** A single `-j N` asks the controller for job N, which fails when it does not exist. */
function missingSingleJob(resp: Plain<ListJobsResponse>, p: SqueueParams): boolean {
  const one = p.jobs?.length === 1 ? p.jobs[0] : undefined;
  if (one === undefined || p.steps) return false;
  return !resp.jobs.some((j) => j.jobId === one.jobId || (j.arrayJobId !== 0 && j.arrayJobId === one.jobId));
}

/** `squeue [options]`. */
/** SLURM_TIME_FORMAT applies to every time this command prints (compat/format-time.ts). */
export const squeueMain = (argv: string[], port: CliPort): Promise<CliResult> =>
  withTimeFormat("squeue", port.env, port.now(), () => squeueRun(argv, port));

async function squeueRun(argv: string[], port: CliPort): Promise<CliResult> {
  resetTimeMemo();
  const parsed = parseSqueueArgs(argv, port.env, port.invoker.uid, SLURM_VERSION_LINE);
  if (!parsed.ok) return parsed.exit;
  const p = parsed.params;
  const out: Output = { stdout: "", stderr: parsed.stderr };
  if (p.users !== undefined && port.userKnown !== undefined) {
    // Slurm drops a user it cannot resolve with an error (and a blank line), and goes on: x-err-squeue-unknown-user
    const known = port.userKnown.bind(port);
    for (const u of p.users.filter((u) => !known(u))) out.stderr += `squeue: error: Invalid user: ${u}\n\n`;
    p.users = p.users.filter((u) => known(u));
  }
  if (p.verbose > 0) out.stdout += optionsDump(p, p.format);
  const format = p.json ? undefined : buildFormat(p, out);
  if (!p.noHeader && (p.verbose > 0 || p.long)) out.stdout += `${formatCtime(Math.floor(port.now()))}\n`;
  let resp: Plain<ListJobsResponse>;
  try {
    // -j: the controller looks the jobs up by id instead of sending the whole queue.
    const ids = p.jobs === undefined || p.jobs.length === 0 ? {} : { jobIds: [...new Set(p.jobs.map((j) => j.jobId))] };
    resp = await port.ctl.listJobs(p.steps ? { includeSteps: true, ...ids } : ids);
  } catch (e) {
    return { ...out, stderr: `${out.stderr}slurm_load_jobs error: ${loadErrorText(e)}\n`, exitCode: 1 };
  }
  if (format === undefined) {
    const cj = await import("../net/rest/cli-json.ts");
    const v = cj.dataParserVersion(p.jsonVersion);
    if (v === cj.LEGACY_JSON) return { ...out, stdout: out.stdout + squeueJson(resp.jobs, resp.clusterName), exitCode: 0 };
    if (!cj.isDataParser(v)) return { ...out, stderr: `${out.stderr}squeue: error: ${v}\n`, exitCode: 1 };
    const who = { user: port.invoker.user, group: port.invoker.group, argv, command: "squeue" };
    return { ...out, stdout: out.stdout + cj.squeueJsonV4(v, resp.jobs, resp.clusterName, resp.now || port.now(), who), exitCode: 0 };
  }
  if (missingSingleJob(resp, p)) {
    return { ...out, stderr: `${out.stderr}slurm_load_jobs error: Invalid job id specified\n`, exitCode: 1 };
  }
  const now = Math.floor(resp.now || port.now());
  const exitCode = p.steps ? printSteps(resp, p, format.items, now, out) : printJobs(resp, p, format.items, now, out);
  return { ...out, exitCode };
}
