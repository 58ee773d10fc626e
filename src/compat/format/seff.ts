/**
 * @module format/seff
 * `seff JOBID`: the efficiency summary of Slurm's contributed seff script (22.05's, version 2.1),
 * computed from the same accounting records sacct prints: AllocCPUS, AllocNodes, Elapsed,
 * TotalCPU summed over the steps, the largest step MaxRSS times that step's task count, and the
 * job's allocated memory (its AllocTRES mem=). Pure: a job record in, the text out. One line
 * seff does not print is added, `GPUs: N`, last, and only for a job that held GPUs.
 */
import { assert } from "../../lib/assert.ts";
import { formatElapsed } from "../format-time.ts";
import { SACCT_FIELDS } from "./sacct-fields.ts";
import { rowCpus, rowElapsed, tresValue, type Job, type SacctRow } from "./sacct-row.ts";

/** seff -v prints this (its $VERSION in 22.05). */
export const SEFF_VERSION_LINE = "seff Version 2.1\n";

export const SEFF_USAGE =
  "Usage: seff [Options] <Jobid>\n       Options:\n       -h    Help menu\n       -v    Version\n       -d    Debug mode: display raw Slurm data\n";

/** The figures seff derives from one job record (its -d "Slurm data" line shows them raw). */
export interface SeffFigures {
  jobId: number;
  /** "A_T" for an array element, "" otherwise. */
  arrayJobId: string;
  user: string;
  group: string;
  state: string;
  cluster: string;
  ncpus: number;
  nnodes: number;
  /** Tasks of the step with the largest MaxRSS (0: no step measured). */
  ntasks: number;
  reqMemKib: number;
  allocMemKib: number;
  /** Memory asked per node (true) or per CPU (false). */
  perNode: boolean;
  cpuSec: number;
  wallSec: number;
  /** Largest step MaxRSS times that step's tasks, KiB. */
  memKib: number;
  exitStatus: number;
  gpus: number;
}

const KIB_PER_UNIT: Readonly<Record<string, number>> = { K: 1, M: 1024, G: 1024 ** 2, T: 1024 ** 3, P: 1024 ** 4 };

/** A TRES mem= value ("2000M", "4G", "512K"; bare numbers are MiB) in KiB; 0 when absent or malformed. */
export function tresMemKib(text: string | undefined): number {
  const m = /^([0-9]+(?:\.[0-9]+)?)([KMGTP]?)$/.exec(text ?? "");
  if (m === null) return 0;
  return Number(m[1]) * (KIB_PER_UNIT[m[2] || "M"] ?? 1024);
}

const exitCodeField = SACCT_FIELDS.find((f) => f.name === "ExitCode");

/** The job's exit status as sacct's job line shows it (the number before ':'). */
function exitStatusOf(row: SacctRow): number {
  assert(exitCodeField !== undefined, "sacct has an ExitCode field");
  return Number(exitCodeField.get(row).split(":")[0] ?? 0);
}

/**
 * CPU seconds over the steps as slurmdbd keeps them: whole seconds summed, and the
 * sub-second parts summed and rounded once.
 */
function totalCpuSec(job: Job): number {
  let whole = 0;
  let fraction = 0;
  for (const step of job.steps) {
    if (step.usage === undefined) continue;
    const sec = Math.max(0, step.usage.userCpuSec) + Math.max(0, step.usage.systemCpuSec);
    whole += Math.floor(sec);
    fraction += sec - Math.floor(sec);
  }
  return whole + Math.floor(fraction + 0.5);
}

/** The step with the largest MaxRSS: its MaxRSS (KiB) and task count. */
function largestStepMemory(job: Job): { maxRssKib: number; ntasks: number } {
  let maxRssKib = 0;
  let ntasks = 0;
  for (const step of job.steps) {
    if (step.usage === undefined) continue;
    if (maxRssKib < step.usage.maxRssKib) {
      maxRssKib = step.usage.maxRssKib;
      ntasks = step.ntasks;
    }
  }
  return { maxRssKib, ntasks };
}

/** What seff computes from `job` (a finished or running job, with its steps). */
export function seffFigures(job: Job, cluster: string, now: number): SeffFigures {
  const row: SacctRow = { job, step: undefined, now, cluster };
  const ncpus = rowCpus(row) || 1;
  const nnodes = (job.nodelist === "" ? 0 : job.numNodes) || 1;
  const largest = largestStepMemory(job);
  const figures: SeffFigures = {
    jobId: job.jobId,
    arrayJobId: job.arrayJobId !== 0 && job.arrayTaskId >= 0 ? `${job.arrayJobId}_${job.arrayTaskId}` : "",
    user: job.user,
    group: job.group,
    state: job.state.toUpperCase(),
    cluster,
    ncpus,
    nnodes,
    ntasks: largest.ntasks,
    reqMemKib: tresMemKib(tresValue(job.tresReq, "mem")),
    allocMemKib: tresMemKib(tresValue(job.tresAlloc, "mem")),
    perNode: job.memPerCpuMib === 0,
    cpuSec: totalCpuSec(job),
    wallSec: rowElapsed(row),
    memKib: largest.maxRssKib * largest.ntasks,
    exitStatus: exitStatusOf(row),
    gpus: Number(tresValue(job.tresAlloc, "gres/gpu") ?? 0) || 0,
  };
  assert(figures.ncpus >= 1 && figures.nnodes >= 1, "seff divides by CPUs and nodes");
  return figures;
}

/** KiB as seff prints sizes: two decimals in the largest 1024-power unit ("0.00 MB" for none). */
export function kibText(kib: number): string {
  if (kib === 0) return "0.00 MB";
  const exp = Math.trunc(Math.log(kib) / Math.log(1024));
  const units = ["K", "M", "G", "T", "P", "E"];
  const unit = exp >= 0 ? (units[exp] ?? "") : (units[units.length + exp] ?? "");
  return `${fixed2(kib / 1024 ** exp)} ${unit}B`;
}

/**
 * printf("%.2f"): C rounds an exact tie to even, JavaScript's toFixed away from zero;
 * the tie is only possible when x * 100 is exactly representable with a .5 fraction.
 */
export function fixed2(x: number): string {
  const scaled = x * 100;
  if (Number.isFinite(scaled) && scaled - Math.floor(scaled) === 0.5 && scaled / 100 === x) {
    const down = Math.floor(scaled);
    return ((down % 2 === 0 ? down : down + 1) / 100).toFixed(2);
  }
  return x.toFixed(2);
}

const percent = (part: number, whole: number): string => fixed2(whole === 0 ? 0 : (part / whole) * 100);

/** seff -d: the raw figures, before the summary. */
export function seffDebugText(f: SeffFigures): string {
  const head = "Slurm data: JobID ArrayJobID User Group State Clustername Ncpus Nnodes Ntasks Reqmem PerNode Cput Walltime Mem ExitStatus";
  const values = [f.jobId, f.arrayJobId, f.user, f.group, f.state, f.cluster, f.ncpus, f.nnodes, f.ntasks, f.reqMemKib, f.perNode ? 1 : 0, f.cpuSec, f.wallSec, f.memKib, f.exitStatus];
  return `${head}\nSlurm data: ${values.join(" ")}\n\n`;
}

function memoryLines(f: SeffFigures): string[] {
  const one = f.ntasks === 1;
  const share = f.perNode ? `${kibText(f.allocMemKib / f.nnodes)}/node` : `${kibText(f.allocMemKib / f.ncpus)}/core`;
  const efficiency = `Memory Efficiency: ${percent(f.memKib, f.allocMemKib)}% of ${kibText(f.allocMemKib)}`;
  return [`Memory Utilized: ${kibText(f.memKib)}${one ? "" : " (estimated maximum)"}`, one ? efficiency : `${efficiency} (${share})`];
}

/** The summary seff prints for the figures of one job. */
export function seffText(f: SeffFigures): string {
  const lines = [`Job ID: ${f.jobId}`];
  if (f.arrayJobId !== "") lines.push(`Array Job ID: ${f.arrayJobId}`);
  lines.push(`Cluster: ${f.cluster}`, `User/Group: ${f.user}/${f.group}`);
  const waitingOrRunning = f.state === "PENDING" || f.state === "RUNNING";
  lines.push(waitingOrRunning ? `State: ${f.state}` : `State: ${f.state} (exit code ${f.exitStatus})`);
  if (f.ncpus === 1) lines.push("Cores: 1");
  else lines.push(`Nodes: ${f.nnodes}`, `Cores per node: ${Math.trunc(f.ncpus / f.nnodes)}`);
  if (f.state === "PENDING") {
    lines.push("Efficiency not available for jobs in the PENDING state.");
  } else {
    const coreWallSec = f.wallSec * f.ncpus;
    lines.push(
      `CPU Utilized: ${formatElapsed(f.cpuSec)}`,
      `CPU Efficiency: ${percent(f.cpuSec, coreWallSec)}% of ${formatElapsed(coreWallSec)} core-walltime`,
      `Job Wall-clock time: ${formatElapsed(f.wallSec)}`,
      ...memoryLines(f),
    );
    if (f.state === "RUNNING") lines.push("WARNING: Efficiency statistics may be misleading for RUNNING jobs.");
  }
  if (f.gpus > 0) lines.push(`GPUs: ${f.gpus}`);
  return `${lines.join("\n")}\n`;
}
