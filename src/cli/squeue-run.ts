/**
 * @module cli/squeue-run
 * One `squeue` listing: argv + env + the controller's job list in, Slurm 22.05's exact
 * text out. Options and formats are tables (compat/format/squeue-*); this
 * file only sequences them: parse, load, select, sort, print. Controller
 * failures print Slurm's `slurm_load_jobs error: ...` and exit 1.
 */
import { formatCtime, isStandardTimeFormat, renderedZoneFits } from "../compat/format-time.ts";
import { runsBatchScript } from "../sched/model/het.ts";
import {
  type FormatItem,
  lineRenderer,
  parseLetterFormat,
  parseNameFormat,
  type ParsedFormat,
  renderLine,
} from "../compat/format/format-spec.ts";
import { squeueJson } from "../compat/format/json-jobs.ts";
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { ALL_FORMAT } from "../compat/format/squeue-fields.ts";
import { jobColumn, jobLetter, jobName } from "../compat/format/squeue-fields-long.ts";
import { parseSqueueArgs, type SqueueParams } from "../compat/format/squeue-options.ts";
import type { JobSelection } from "../compat/format/squeue-select.ts";
import { parseJobSort, sortNotes } from "../compat/format/squeue-sort.ts";
import { naturalCompare } from "../compat/hostlist.ts";
import {
  DEFAULT_FORMAT, DEFAULT_SORT, LONG_FORMAT, missingSingleJob, renderSqueueJobs, SQUEUE_VIEW_VERSION, type SqueueView, viewSortValid, viewToWire,
} from "../compat/format/squeue-view.ts";
import { resetTimeMemo } from "../compat/format/time-memo.ts";
import { selectStep, sortSteps, stepColumn, stepLetter, stepName, type StepRow } from "../compat/format/squeue-steps.ts";
import { type CliPort, type CliResult, type ListJobsAnswer, RpcError } from "../net/ctl-port.ts";

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
    `iterate     = ${p.iterate}`,
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

/** The job listing's view of these options (compat/format/squeue-view.ts). */
function viewOf(p: SqueueParams): SqueueView {
  return {
    v: SQUEUE_VIEW_VERSION,
    format: p.format ?? (p.long ? LONG_FORMAT : DEFAULT_FORMAT),
    ...(p.format === undefined && p.formatLong !== undefined ? { formatLong: p.formatLong } : {}),
    ...(p.sort === undefined ? {} : { sort: p.sort }),
    noHeader: p.noHeader, array: p.array, priority: p.priority, selection: selection(p),
  };
}

/**
 * The view to ask the controller to render, or undefined where squeue renders itself: steps and
 * --json (other listings), a bad -S (an error squeue reports), SLURM_TIME_FORMAT set (the
 * controller prints ISO times only).
 */
function controllerView(p: SqueueParams): SqueueView | undefined {
  if (p.steps || p.json || !isStandardTimeFormat()) return undefined;
  const view = viewOf(p);
  return viewSortValid(view) ? view : undefined;
}

function printJobs(resp: ListJobsAnswer, p: SqueueParams, items: readonly FormatItem[], now: number, out: Output): number {
  const sortKeys = parseJobSort(p.sort ?? DEFAULT_SORT);
  if (!sortKeys.ok) {
    // Slurm prints the header before it finds the sort bad
    if (!p.noHeader) out.stdout += renderLine(items, jobColumn, undefined);
    out.stderr += `squeue: error: ${sortKeys.error.message}\n`;
    return 1;
  }
  out.stdout += renderSqueueJobs(resp.jobs, viewOf(p), now, resp.clusterName)?.text ?? "";
  return 0;
}

const BATCH_STEP = -5;

/** A running batch job's script as the step squeue -s shows: <job>.batch on the batch host. */
function batchStepOf(job: ListJobsAnswer["jobs"][number]): StepRow["step"] {
  return {
    jobId: job.jobId, stepId: BATCH_STEP, name: "batch", state: "RUNNING", nodelist: job.batchHost, ntasks: 1,
    cpus: job.alloc[0]?.cpus ?? 1, startTime: job.startTime, endTime: 0, exitCode: 0, exitSignal: 0, alloc: [], tres: "",
  };
}

function printSteps(resp: ListJobsAnswer, p: SqueueParams, items: readonly FormatItem[], now: number, out: Output): number {
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

/** `squeue [options]`. */
/**
 * -w names only nodes: Slurm fails on the first name (in hostlist order) that is no node's,
 * before it prints anything; an unreachable controller is left to the listing's own error.
 */
async function unknownNode(port: CliPort, names: readonly string[]): Promise<string | undefined> {
  let known: Set<string>;
  try {
    // only the named nodes come back (an older controller sends all: the same answer here)
    known = new Set((await port.ctl.listNodes({ names: [...new Set(names)] })).nodes.map((n) => n.name));
  } catch {
    return undefined;
  }
  const bad = [...names].sort(naturalCompare).find((n) => !known.has(n));
  return bad === undefined ? undefined : `squeue: error: Invalid node name ${bad}\n`;
}

/** One listing (squeue.ts runs it once, or every -i seconds). */
export async function squeueRun(argv: string[], port: CliPort): Promise<CliResult> {
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
  if (p.nodes !== undefined) {
    const bad = await unknownNode(port, p.nodes);
    if (bad !== undefined) return { ...out, stderr: `${out.stderr}${bad}`, exitCode: 1 };
  }
  if (p.verbose > 0) out.stdout += optionsDump(p, p.format);
  const format = p.json ? undefined : buildFormat(p, out);
  if (!p.noHeader && (p.verbose > 0 || p.long || p.iterate > 0)) out.stdout += `${formatCtime(Math.floor(port.now()))}\n`;
  if (format !== undefined && !p.steps) out.stderr += sortNotes(p.sort ?? DEFAULT_SORT);
  let resp: ListJobsAnswer;
  try {
    // -j: the controller looks the jobs up by id instead of sending the whole queue.
    const ids = p.jobs === undefined || p.jobs.length === 0 ? {} : { jobIds: [...new Set(p.jobs.map((j) => j.jobId))] };
    const view = format === undefined ? undefined : controllerView(p);
    if (view !== undefined) {
      // The controller renders the usual listings from its state with this same code (squeue-view.ts):
      // no job list crosses the wire. It sends the jobs instead when it cannot (older, -j N missing).
      const answer = await port.ctl.listJobs({ ...ids, squeueView: viewToWire(view) });
      // Local times in the text are the controller's zone's: used only in the same zone.
      if (answer.squeueText !== undefined && renderedZoneFits(answer.squeueTextZone)) return { ...out, stdout: out.stdout + answer.squeueText, exitCode: 0 };
      resp = answer.squeueText === undefined ? answer : await port.ctl.listJobs(ids);
    } else resp = await port.ctl.listJobs(p.steps ? { includeSteps: true, ...ids } : ids);
  } catch (e) {
    return { ...out, stderr: `${out.stderr}slurm_load_jobs error: ${loadErrorText(e)}\n`, exitCode: 1 };
  }
  if (format === undefined) {
    const cj = await import("../net/rest/cli-json.ts");
    const v = cj.dataParserVersion(p.jsonVersion);
    if (v === cj.LEGACY_JSON) return { ...out, stdout: out.stdout + squeueJson(resp.jobs, resp.clusterName), exitCode: 0 };
    if (!cj.isDataParser(v)) return { ...out, stderr: `${out.stderr}squeue: error: ${v}\n`, exitCode: 1 };
    const who = { user: port.invoker.user, group: port.invoker.group, argv, command: "squeue" };
    const chunks = cj.squeueJsonV4Chunks(v, resp.jobs, resp.clusterName, resp.now || port.now(), who);
    if (port.streamsOutput === true) return { ...out, stdoutMore: chunks, exitCode: 0 };
    return { ...out, stdout: out.stdout + [...chunks].join(""), exitCode: 0 };
  }
  if (!p.steps && missingSingleJob(resp.jobs, p.jobs)) {
    return { ...out, stderr: `${out.stderr}slurm_load_jobs error: Invalid job id specified\n`, exitCode: 1 };
  }
  const now = Math.floor(resp.now || port.now());
  const exitCode = p.steps ? printSteps(resp, p, format.items, now, out) : printJobs(resp, p, format.items, now, out);
  return { ...out, exitCode };
}
