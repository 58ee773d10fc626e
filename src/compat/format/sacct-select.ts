/**
 * @module format/sacct-select
 * Which accounting records sacct prints, and in what order: Slurm's user rule
 * (root and -a/-j/-N see everyone, others their own jobs), -j/--name/-r/-A/-q/
 * -N filters, and the time window: without -j the window starts at local
 * midnight (or "now" with -s); jobs count when eligible before its end and not
 * ended before its start, and -s states are judged by when the job was in
 * them, as slurmdbd's query does. Rows: each job, then its steps.
 */
import { parseArraySpec } from "../array-spec.ts";
import { expandHostlist } from "../hostlist.ts";
import type { SacctQuery } from "./sacct-options.ts";
import { jobEnd, jobStart, stepOrder, stepIdText, type Job, type SacctRow, type Step } from "./sacct-row.ts";
import { localMidnight } from "./sacct-time.ts";
import { eligibleTimeOf } from "./job-values.ts";
import { accountedJobName } from "./sacct-fields.ts";

export interface SelectContext {
  query: SacctQuery;
  invokerUid: number;
  now: number;
  cluster: string;
}

interface IdSelector {
  jobId: number;
  /** undefined: the job or whole array; otherwise these task ids. */
  tasks: number[] | undefined;
  /** A step name ("batch", "0"): only that step's line is shown. */
  step: string | undefined;
  /** "17+1": that component of heterogeneous job 17 only. */
  hetOffset?: number;
}

function parseSelector(text: string): IdSelector {
  const [jobPart = "", step] = text.split(".");
  const het = /^(\d+)\+(\d+)$/.exec(jobPart);
  if (het !== null) return { jobId: Number(het[1]), tasks: undefined, step, hetOffset: Number(het[2]) };
  const [idText = "", taskText] = jobPart.split("_");
  let tasks: number[] | undefined;
  if (taskText !== undefined && taskText !== "*") {
    const spec = parseArraySpec(taskText.replace(/^\[|\]$/g, ""), Number.MAX_SAFE_INTEGER);
    tasks = spec.ok ? spec.value.taskIds : [];
  }
  return { jobId: Number(idText), tasks, step };
}

/** Task ids a record stands for: its own index, or a pending remainder's set. */
function recordTasks(job: Job): number[] {
  if (job.arrayTaskStr !== "") {
    const spec = parseArraySpec(job.arrayTaskStr, Number.MAX_SAFE_INTEGER);
    return spec.ok ? spec.value.taskIds : [];
  }
  return job.arrayTaskId >= 0 ? [job.arrayTaskId] : [];
}

function matchesSelector(job: Job, sel: IdSelector): boolean {
  if (sel.hetOffset !== undefined) return job.hetJobId === sel.jobId && (job.hetJobOffset ?? 0) === sel.hetOffset;
  if (sel.tasks === undefined) return job.jobId === sel.jobId || job.arrayJobId === sel.jobId || (job.hetJobId !== undefined && job.hetJobId !== 0 && job.hetJobId === sel.jobId);
  if (job.arrayJobId !== sel.jobId) return false;
  return recordTasks(job).some((t) => (sel.tasks as number[]).includes(t));
}

function userVisible(job: Job, ctx: SelectContext): boolean {
  const q = ctx.query;
  if (q.users.length > 0) return q.users.some((u) => u === job.user || u === String(job.uid));
  if (q.allUsers || q.jobIds.length > 0 || q.nodelist !== "" || ctx.invokerUid === 0) return true;
  return job.uid === ctx.invokerUid;
}

function ranOn(job: Job, nodes: Set<string>): boolean {
  const names = expandHostlist(job.nodelist);
  return names.ok && names.value.some((n) => nodes.has(n));
}

/** Was the job in `state` at some point of [start, end]? (slurmdbd's rule) */
function inStateDuring(job: Job, state: string, start: number, end: number): boolean {
  if (job.state.toUpperCase() !== state) return false;
  const eligible = Math.floor(job.eligibleTime);
  const began = jobStart(job);
  const ended = jobEnd(job);
  if (state === "PENDING") return eligible !== 0 && eligible <= end && (began === 0 || began >= start);
  if (state === "RUNNING" || state === "SUSPENDED") return began !== 0 && began <= end && (ended === 0 || ended >= start);
  return ended !== 0 && ended >= start && ended <= end;
}

/** The window's start: -S, else (without -j) local midnight, or now with -s. Worked out once per query. */
function windowStart(ctx: SelectContext): number | undefined {
  const q = ctx.query;
  if (q.start === undefined && q.jobIds.length === 0) return q.states.length > 0 ? ctx.now : localMidnight(ctx.now);
  return q.start;
}

function inWindow(job: Job, ctx: SelectContext, start: number | undefined): boolean {
  const q = ctx.query;
  if (start === undefined && q.end === undefined) return q.states.length === 0 || q.states.includes(job.state.toUpperCase());
  const from = start ?? 0;
  const to = q.end ?? ctx.now;
  if (q.states.length > 0) return q.states.some((s) => inStateDuring(job, s, from, to));
  // eligible as accounting has it: never, for a job held (or waiting on a dependency) until it ended
  const eligible = Math.floor(eligibleTimeOf(job));
  const ended = jobEnd(job);
  // jobs named with -j count from their submission when they were never eligible (oracle 22.05: a held job
  // cancelled pending is listed by -j J -S 2020-01-01, not by --name N -S 2020-01-01, not by -j J -E 2020-01-02)
  if (eligible === 0) {
    // (submitted this very second still counts: the oracle lists a job cancelled at once)
    const submitted = q.jobIds.length > 0 ? Math.floor(job.submitTime) : 0;
    return submitted !== 0 && submitted <= to && (ended === 0 || ended >= from);
  }
  return eligible < to && (ended === 0 || ended >= from);
}

function jobSelected(
  job: Job,
  ctx: SelectContext,
  selectors: IdSelector[],
  nodes: Set<string> | undefined,
  start: number | undefined,
): boolean {
  const q = ctx.query;
  if (selectors.length > 0 && !selectors.some((s) => matchesSelector(job, s))) return false;
  if (!userVisible(job, ctx)) return false;
  if (q.names.length > 0 && !q.names.includes(accountedJobName(job.name))) return false;
  if (q.partitions.length > 0 && !q.partitions.includes(job.partition)) return false;
  if (q.accounts.length > 0 && !q.accounts.includes(job.account)) return false;
  if (q.qos.length > 0 && !q.qos.includes(job.qos.toLowerCase())) return false;
  if (nodes !== undefined && !ranOn(job, nodes)) return false;
  return inWindow(job, ctx, start);
}

/** Array elements sort under their array (17_1, 17_2, 17_3), then by id. */
function sortKey(job: Job): [number, number, number] {
  const arrayId = job.arrayJobId !== 0 ? job.arrayJobId : job.jobId;
  return [arrayId, job.arrayTaskStr !== "" ? -1 : job.arrayTaskId, job.jobId];
}

/**
 * Stable sort by sortKey, keys computed once per record; the controller's
 * list is usually in id order already, which is detected in one pass.
 */
function sortForDisplay(jobs: readonly Job[]): Job[] {
  const n = jobs.length;
  const keys: [number, number, number][] = new Array<[number, number, number]>(n);
  for (let i = 0; i < n; i++) keys[i] = sortKey(jobs[i] as Job);
  const compare = (a: number, b: number): number => {
    const ka = keys[a] as [number, number, number];
    const kb = keys[b] as [number, number, number];
    return ka[0] - kb[0] || ka[1] - kb[1] || ka[2] - kb[2];
  };
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) sorted = !(compare(i - 1, i) > 0);
  if (sorted) return jobs.slice();
  const order: number[] = new Array<number>(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => compare(a, b) || a - b);
  return order.map((i) => jobs[i] as Job);
}

/** --array: one line per task of a pending remainder ("17_[4-6]" → 17_4, 17_5, 17_6). */
function expandRemainder(job: Job): Job[] {
  if (job.arrayTaskStr === "") return [job];
  return recordTasks(job).map((t) => ({ ...job, arrayTaskStr: "", arrayTaskId: t }));
}

/** The job's steps in display order (most lists already are: checked before sorting). */
function orderedSteps(job: Job): readonly Step[] {
  const steps = job.steps;
  let sorted = true;
  for (let i = 1; i < steps.length && sorted; i++) {
    sorted = stepOrder((steps[i - 1] as Step).stepId) <= stepOrder((steps[i] as Step).stepId);
  }
  return sorted ? steps : [...steps].sort((a, b) => stepOrder(a.stepId) - stepOrder(b.stepId));
}

function rowsOf(job: Job, ctx: SelectContext, selectors: IdSelector[]): SacctRow[] {
  const stepNames = selectors.length === 0 ? [] : selectors.filter((s) => matchesSelector(job, s)).map((s) => s.step);
  const onlySteps = stepNames.length > 0 && stepNames.every((s) => s !== undefined);
  const { now, cluster } = ctx;
  const rows: SacctRow[] = onlySteps ? [] : [{ job, now, cluster, step: undefined }];
  if (ctx.query.noSteps && !onlySteps) return rows;
  for (const step of orderedSteps(job)) {
    if (onlySteps && !stepNames.includes(stepIdText(step.stepId))) continue;
    rows.push({ job, now, cluster, step });
  }
  return rows;
}

/**
 * The records sacct's query selects, in their order: each record is judged alone (ids, user,
 * names, partitions, accounts, QOS, nodes, the window and states), so the controller can run it
 * over its records before sending them (sacctPreselection) and sacct again over what it got.
 */
export function selectedJobs<J extends Job>(jobs: readonly J[], ctx: SelectContext): J[] {
  const selectors = ctx.query.jobIds.map(parseSelector);
  const nodeNames = ctx.query.nodelist === "" ? undefined : expandHostlist(ctx.query.nodelist);
  const nodes = nodeNames === undefined ? undefined : new Set(nodeNames.ok ? nodeNames.value : []);
  const start = windowStart(ctx);
  return jobs.filter((j) => jobSelected(j, ctx, selectors, nodes, start));
}

/**
 * What sacct sends the controller (ListJobsRequest.sacct_query) for it to leave out the records
 * the query does not select: the query with the window's start worked out here (local midnight
 * is the client's, not the controller's), the invoking uid and the second it asks at.
 */
export interface SacctPreselection {
  query: SacctQuery;
  invokerUid: number;
  now: number;
}

export function sacctPreselection(ctx: SelectContext): SacctPreselection {
  return { query: { ...ctx.query, start: windowStart(ctx) }, invokerUid: ctx.invokerUid, now: ctx.now };
}

/**
 * The one uid every record the preselection keeps has, where the query implies one (a user who
 * is not root, without -a, -u, -j or -N, sees only their own jobs: userVisible): the controller
 * then builds no view of anyone else's records.
 */
export function preselectedUid(p: SacctPreselection): number | undefined {
  const q = p.query;
  if (q.users.length > 0 || q.allUsers || q.jobIds.length > 0 || q.nodelist !== "" || p.invokerUid === 0) return undefined;
  return p.invokerUid;
}

/** The records a preselection keeps (the controller's side); `cluster` is the controller's ClusterName. */
export function preselected<J extends Job>(jobs: readonly J[], p: SacctPreselection, cluster: string): J[] {
  return selectedJobs(jobs, { query: p.query, invokerUid: p.invokerUid, now: p.now, cluster });
}

/** The lines sacct prints for these records, in Slurm's order. */
export function selectRows(jobs: readonly Job[], ctx: SelectContext): SacctRow[] {
  // -M naming only other clusters: this database holds none of their jobs (the header alone, as Slurm)
  const clusters = ctx.query.clusters;
  if (clusters !== undefined && !clusters.includes("all") && !clusters.includes(ctx.cluster.toLowerCase())) return [];
  const chosen = selectedJobs(jobs, ctx);
  const expanded = ctx.query.expandArrays ? chosen.flatMap(expandRemainder) : chosen;
  const selectors = ctx.query.jobIds.map(parseSelector);
  const rows: SacctRow[] = [];
  for (const job of sortForDisplay(expanded)) {
    for (const row of rowsOf(job, ctx, selectors)) rows.push(row);
  }
  return rows;
}

/** The records behind the rows (for --json), in the same order. */
export function selectJobs(jobs: readonly Job[], ctx: SelectContext): Job[] {
  const rows = selectRows(jobs, ctx);
  return [...new Set(rows.map((r) => r.job))];
}
