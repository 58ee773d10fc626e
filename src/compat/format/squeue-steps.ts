/**
 * @module format/squeue-steps
 * `squeue -s`: the job-step column table (letters and -O names of
 * squeue-format.tsv's "step" rows), the step filter and the "P,i" order.
 * Steps come from the jobs' `steps` lists; the job gives partition and user.
 */
import type { Plain } from "../../lib/plain.ts";
import type { StepInfo } from "../../net/gen/spur/v1/types_pb.ts";
import { assert } from "../../lib/assert.ts";
import { formatDuration } from "../format-time.ts";
import { expandHostlist } from "../hostlist.ts";
import type { ColumnDef } from "./format-spec.ts";
import { type Job, timeText } from "./job-values.ts";
import type { JobIdSel } from "./squeue-select.ts";

export interface StepRow {
  step: Plain<StepInfo>;
  job: Job;
  now: number;
}

/** Spur's special step ids (Slurm's SLURM_*_STEP offsets) and their names. */
const STEP_NAMES: Readonly<Record<number, string>> = { [-5]: "batch", [-4]: "extern", [-6]: "interactive", [-2]: "TBD" };

const stepIdText = (stepId: number): string => STEP_NAMES[stepId] ?? String(stepId);

/** "17_2.batch", "20.0". */
export function displayStepId(r: StepRow): string {
  const owner = r.job.arrayJobId !== 0 && r.job.arrayTaskId >= 0 ? `${r.job.arrayJobId}_${r.job.arrayTaskId}` : String(r.step.jobId);
  return `${owner}.${stepIdText(r.step.stepId)}`;
}

interface StepField {
  key: string;
  letter?: string;
  header: string;
  get: (r: StepRow) => string | undefined;
  cut?: boolean;
}

const used = (r: StepRow): string => formatDuration(r.step.startTime === 0 ? 0 : r.now - Math.floor(r.step.startTime));

const STEP_FIELDS: readonly StepField[] = [
  { key: "NumTasks", letter: "A", header: "TASKS", get: (r) => String(r.step.ntasks) },
  { key: "tres-per-node", letter: "b", header: "TRES_PER_JOB", get: (r) => r.step.tres || undefined },
  { key: "StepId", letter: "i", header: "STEPID", get: displayStepId },
  { key: "StepName", letter: "j", header: "NAME", get: (r) => r.step.name },
  { key: "TimeLimit", letter: "l", header: "TIME_LIMIT", get: () => "UNLIMITED" },
  { key: "TimeUsed", letter: "M", header: "TIME", get: used, cut: false },
  { key: "Nodes", letter: "N", header: "NODELIST", get: (r) => r.step.nodelist, cut: false },
  { key: "Partition", letter: "P", header: "PARTITION", get: (r) => r.job.partition },
  { key: "StartTime", letter: "S", header: "START_TIME", get: (r) => timeText(r.step.startTime) },
  { key: "UserName", letter: "u", header: "USER", get: (r) => r.job.user },
  { key: "UserId", letter: "U", header: "UID", get: (r) => String(r.job.uid) },
  { key: "ArrayJobId", header: "ARRAY_JOB_ID", get: (r) => String(r.job.arrayJobId || r.step.jobId) },
  { key: "ArrayTaskId", header: "ARRAY_TASK_ID", get: (r) => (r.job.arrayTaskId >= 0 ? String(r.job.arrayTaskId) : "N/A") },
  { key: "Cluster", header: "CLUSTER", get: () => undefined },
  { key: "JobId", header: "JOB_ID", get: (r) => String(r.step.jobId) },
  { key: "NumCPUs", header: "NUM_CPUS", get: (r) => String(r.step.cpus) },
  { key: "Runtime", header: "RUNTIME", get: used },
  { key: "StepState", header: "STATE", get: (r) => r.step.state },
];

const BY_KEY = new Map(STEP_FIELDS.map((f) => [f.key, f]));

export const stepLetter = (letter: string): string | undefined => STEP_FIELDS.find((f) => f.letter === letter)?.key;
export const stepName = (name: string): string | undefined =>
  STEP_FIELDS.find((f) => f.key.toLowerCase() === name.toLowerCase())?.key;

export function stepColumn(key: string): ColumnDef<StepRow> {
  const f = BY_KEY.get(key);
  assert(f !== undefined, `unknown squeue step column ${key}`);
  return { header: f.header, value: f.get, cut: f.cut !== false, cutHeader: f.key !== "Nodes" };
}

export interface StepSelection {
  jobs?: readonly JobIdSel[];
  steps?: readonly string[];
  partitions?: readonly string[];
  nodes?: readonly string[];
  users?: readonly string[];
}

function jobMatches(sel: readonly JobIdSel[], job: Job, jobId: number): boolean {
  return sel.some((s) => {
    if (s.taskId !== undefined) return s.jobId === job.arrayJobId && s.taskId === job.arrayTaskId;
    return s.jobId === jobId || (job.arrayJobId !== 0 && s.jobId === job.arrayJobId);
  });
}

function stepNamed(list: readonly string[], r: StepRow): boolean {
  const id = displayStepId(r);
  return list.some((s) => s === id || s === `${r.step.jobId}.${stepIdText(r.step.stepId)}`);
}

/** Slurm's _filter_step: pending steps never show. */
export function selectStep(r: StepRow, sel: StepSelection): boolean {
  if (r.step.state.toUpperCase() === "PENDING") return false;
  if (sel.jobs !== undefined && !jobMatches(sel.jobs, r.job, r.step.jobId)) return false;
  if (sel.partitions !== undefined && !sel.partitions.includes(r.job.partition)) return false;
  if (sel.steps !== undefined && !stepNamed(sel.steps, r)) return false;
  if (sel.nodes !== undefined) {
    const names = expandHostlist(r.step.nodelist);
    if (!names.ok || !names.value.some((n) => sel.nodes?.includes(n))) return false;
  }
  if (sel.users !== undefined && !sel.users.some((u) => u === r.job.user || u === String(r.job.uid))) return false;
  return true;
}

/** Step ids sort as Slurm's unsigned values: special (negative) steps after numbered ones. */
const unsignedStep = (stepId: number): number => (stepId < 0 ? 0x100000000 + stepId : stepId);

/** Default step order "P,i": partition, then job id and step id. */
export function sortSteps(rows: readonly StepRow[]): StepRow[] {
  const out = [...rows];
  out.sort((a, b) => a.step.jobId - b.step.jobId || unsignedStep(a.step.stepId) - unsignedStep(b.step.stepId));
  out.sort((a, b) => (a.job.partition < b.job.partition ? -1 : a.job.partition > b.job.partition ? 1 : 0));
  return out;
}
