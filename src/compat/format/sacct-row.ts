/**
 * @module format/sacct-row
 * One sacct output line (a job or one of its steps) and the derived values
 * the field table prints: ids like `17_1.batch`, accounting-style start/end
 * (a job that ended without starting shows Start = End, as slurmdbd stores
 * it), elapsed time, `exit:signal`, `CANCELLED by <uid>` and TRES strings in
 * sacct's alphabetical order.
 */
import type { Plain } from "../../lib/plain.ts";
import type { JobInfo, StepInfo } from "../../net/gen/spur/v1/types_pb.ts";
import { hostlistCount } from "../hostlist.ts";
import { displayJobId } from "./job-values.ts";

export type Job = Plain<JobInfo>;
export type Step = Plain<StepInfo>;

/** A job line (step undefined) or a step line of that job. */
export interface SacctRow {
  job: Job;
  step: Step | undefined;
  /** Whole seconds, the clock of the sacct invocation. */
  now: number;
  cluster: string;
}

/** Slurm's reserved step ids (SLURM_*_STEP offsets) and how sacct names them. */
export const STEP_NAMES: Readonly<Record<number, string>> = { [-5]: "batch", [-4]: "extern", [-6]: "interactive" };

/** Display order of steps: batch, extern, interactive, then numbered steps. */
export function stepOrder(stepId: number): number {
  if (stepId === -5) return 0;
  if (stepId === -4) return 1;
  if (stepId === -6) return 2;
  return 3 + stepId;
}

/** "batch", "extern", "interactive" or the number (a switch: hot in 10k-job listings). */
export function stepIdText(stepId: number): string {
  switch (stepId) {
    case -5:
      return "batch";
    case -4:
      return "extern";
    case -6:
      return "interactive";
    default:
      return STEP_NAMES[stepId] ?? String(stepId);
  }
}

/** sacct JobID: `20`, `17_1`, `17_[4-10%2]`; steps append `.batch`, `.0`. */
export function jobIdText(row: SacctRow): string {
  const id = displayJobId(row.job);
  return row.step === undefined ? id : `${id}.${stepIdText(row.step.stepId)}`;
}

/** sacct JobIDRaw: the numeric job id, steps as `18.batch`. */
export function jobIdRawText(row: SacctRow): string {
  const id = String(row.job.jobId);
  return row.step === undefined ? id : `${id}.${stepIdText(row.step.stepId)}`;
}

/** Jobs that may still run: their endTime, if any, is only the expected end. */
const ACTIVE_STATES = new Set(["PENDING", "RUNNING", "SUSPENDED"]);

/** End as accounting records it: 0 (Unknown) until the job has ended. */
export const jobEnd = (job: Job): number => (ACTIVE_STATES.has(job.state.toUpperCase()) ? 0 : Math.floor(job.endTime));

/** Start as accounting keeps it: a job that ended unstarted has Start = End. */
export function jobStart(job: Job): number {
  const start = Math.floor(job.startTime);
  const end = jobEnd(job);
  if (end !== 0 && (start === 0 || start > end)) return end;
  return start;
}

/** A step without an end time takes the job's end (sacct's do_list rule). */
export const stepEnd = (row: SacctRow): number =>
  row.step !== undefined && row.step.endTime !== 0 ? Math.floor(row.step.endTime) : jobEnd(row.job);

export const rowStart = (row: SacctRow): number =>
  row.step === undefined ? jobStart(row.job) : Math.floor(row.step.startTime);

export const rowEnd = (row: SacctRow): number => (row.step === undefined ? jobEnd(row.job) : stepEnd(row));

/** Elapsed seconds: 0 before start, up to now while running. */
export function rowElapsed(row: SacctRow): number {
  const start = rowStart(row);
  if (start === 0) return 0;
  const end = rowEnd(row);
  return Math.max(0, (end === 0 ? row.now : end) - start);
}

/**
 * AllocCPUS of the line: a step's own count; for a job its CPUs once it has
 * left the queue (a job that ended unstarted keeps its request, as 22.05
 * shows for cancelled pending jobs), 0 while still pending.
 */
export function rowCpus(row: SacctRow): number {
  if (row.step !== undefined) return row.step.cpus;
  return row.job.state.toUpperCase() === "PENDING" ? 0 : row.job.numCpus;
}

/** Number of hosts in a hostlist expression (0 when empty or malformed). */
export function nodeCount(nodelist: string): number {
  const n = hostlistCount(nodelist);
  return n.ok ? n.value : 0;
}

/** sacct ExitCode / DerivedExitCode: "exit:signal"; exits >= 128 lose 128. */
export function exitText(code: number, signal: number): string {
  return `${code >= 128 ? code - 128 : code}:${signal}`;
}

/** sacct State: the base state, `CANCELLED by <uid>` when the canceller is known. */
export function sacctState(row: SacctRow): string {
  if (row.step !== undefined) return row.step.state.toUpperCase();
  const state = row.job.state.toUpperCase();
  if (state === "CANCELLED" && row.job.cancelledBy !== "") return `CANCELLED by ${row.job.cancelledBy}`;
  return state;
}

/** The base state a state filter (-s) compares against. */
export const baseState = (row: SacctRow): string =>
  (row.step === undefined ? row.job.state : row.step.state).toUpperCase();

/** sortTres results by input: a listing repeats a handful of TRES strings. */
const SORTED_TRES = new Map<string, string>();

/** TRES list in sacct's order (alphabetical by name): billing, cpu, gres/gpu, mem, node. */
export function sortTres(tres: string): string {
  let sorted = SORTED_TRES.get(tres);
  if (sorted === undefined) {
    const items = tres.split(",").filter((t) => t !== "");
    const keyed = items.map((t) => ({ key: t.split("=")[0] ?? t, t }));
    keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    sorted = keyed.map((k) => k.t).join(",");
    if (SORTED_TRES.size >= 4096) SORTED_TRES.clear();
    SORTED_TRES.set(tres, sorted);
  }
  return sorted;
}

/** The value of one TRES ("mem" → "256M"), undefined when absent. */
export function tresValue(tres: string, name: string): string | undefined {
  for (const item of tres.split(",")) {
    const eq = item.indexOf("=");
    if (eq > 0 && item.slice(0, eq) === name) return item.slice(eq + 1);
  }
  return undefined;
}

/** Time spent eligible but not running (Planned, formerly Reserved). */
export function plannedSecs(row: SacctRow): number {
  const job = row.job;
  const eligible = Math.floor(job.eligibleTime);
  if (eligible === 0) return 0;
  const start = Math.floor(job.startTime);
  if (start === 0 && jobEnd(job) !== 0) return Math.max(0, jobEnd(job) - eligible);
  return Math.max(0, (start === 0 ? row.now : start) - eligible);
}
