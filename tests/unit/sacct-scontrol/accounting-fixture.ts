/**
 * @module tests/sacct-scontrol/accounting-fixture
 * The accounting records behind goldens 102-116 ("all jobs submitted by this
 * script so far, ids 1..38"), rebuilt from what those goldens print: names,
 * CPUs, TRES, states, exit codes, elapsed times and the jobs plain sacct hides
 * (never eligible: 22, 23, 26, 37). Times are on the oracle's day (UTC).
 */
import { at, makeJob, makeStep, type Job } from "./helpers.ts";

/** The clock of the sacct invocations: after every job ended. */
export const ACCOUNTING_NOW = at("12:40:00");

type StepKind = "srun" | "batch" | "none";

interface Spec {
  id: number;
  name: string;
  cpus?: number;
  nodes?: number;
  node?: string;
  mem?: string;
  gpus?: number;
  state?: string;
  exit?: number;
  steps?: StepKind;
  /** Never got resources (no AllocTRES, no steps). */
  unstarted?: boolean;
  /** Never became eligible (hidden from plain sacct). */
  ineligible?: boolean;
  elapsed?: number;
  partition?: string;
  stepSignal?: number;
  array?: [arrayJobId: number, taskId: number];
}

function tres(s: Spec): string {
  const cpus = s.cpus ?? 1;
  const base = `cpu=${cpus},mem=${s.mem ?? `${256 * cpus}M`},node=${s.nodes ?? 1},billing=${cpus}`;
  return s.gpus ? `${base},gres/gpu=${s.gpus}` : base;
}

function build(s: Spec): Job {
  const submit = s.id === 25 ? at("12:36:11") : at("12:35:00") + s.id;
  const start = s.unstarted || s.ineligible ? 0 : s.id === 25 ? at("12:36:12") : submit;
  const end = start === 0 ? submit + 1 : start + (s.elapsed ?? 0);
  const cancelled = (s.state ?? "COMPLETED") === "CANCELLED";
  const job = makeJob({
    jobId: s.id, name: s.name, numCpus: s.cpus ?? 1, numNodes: s.nodes ?? 1, partition: s.partition ?? "debug",
    state: s.state ?? "COMPLETED", exitCode: s.exit ?? 0, cancelledBy: cancelled ? "0" : "",
    submitTime: submit, eligibleTime: s.ineligible ? 0 : submit, startTime: start, endTime: end,
    nodelist: start === 0 ? "" : (s.node ?? "n1"), tresReq: tres(s), tresAlloc: start === 0 ? "" : tres(s),
    arrayJobId: s.array?.[0] ?? 0, arrayTaskId: s.array?.[1] ?? -1, batchFlag: s.steps !== "srun",
    stdOut: `/tmp/slurm-oracle/jobs/slurm-${s.id}.out`, stdErr: `/tmp/slurm-oracle/jobs/slurm-${s.id}.out`,
  });
  const kind = start === 0 ? "none" : (s.steps ?? "batch");
  if (kind === "none") return job;
  const stepTres = tres(s).replace(/,billing=\d+/, "");
  const stepState = s.stepSignal ? "CANCELLED" : (s.state ?? "COMPLETED");
  const step = makeStep({
    jobId: s.id, stepId: kind === "batch" ? -5 : 0, name: kind === "batch" ? "batch" : s.name,
    state: stepState, nodelist: job.nodelist, cpus: s.cpus ?? 1, ntasks: s.cpus ?? 1,
    startTime: start, endTime: end, exitCode: s.exit ?? 0, exitSignal: s.stepSignal ?? 0, tres: stepTres,
  });
  return { ...job, steps: [step] };
}

const CA = "CANCELLED";
const F = "FAILED";

const SPECS: Spec[] = [
  { id: 1, name: "hostname", steps: "srun" },
  { id: 2, name: "hostname", cpus: 2, nodes: 2, node: "n[1-2]", steps: "srun" },
  { id: 3, name: "hostname", cpus: 3, steps: "srun" },
  { id: 4, name: "bash", gpus: 2, node: "n3", steps: "srun" },
  { id: 5, name: "false", state: F, exit: 1, steps: "srun" },
  { id: 6, name: "hostname", state: F, exit: 1, unstarted: true },
  { id: 7, name: "hostname", cpus: 5, state: CA, unstarted: true },
  { id: 8, name: "hostname", cpus: 5, state: CA, unstarted: true },
  { id: 9, name: "wrap" },
  { id: 10, name: "wrap" },
  { id: 11, name: "wrap" },
  { id: 12, name: "wrap", state: F, exit: 3 },
  { id: 14, name: "gpuenv", gpus: 2, node: "n3" },
  { id: 15, name: "wrap", gpus: 1, node: "n3", partition: "gpu" },
  { id: 16, name: "wrap" },
  { id: 18, name: "golden", cpus: 2, gpus: 2, node: "n3", state: CA, elapsed: 10, stepSignal: 15, array: [17, 1] },
  { id: 19, name: "golden", cpus: 2, gpus: 2, node: "n3", state: CA, elapsed: 9, stepSignal: 15, array: [17, 2] },
  { id: 17, name: "golden", cpus: 2, gpus: 2, node: "n4", state: CA, elapsed: 10, stepSignal: 15, array: [17, 3] },
  { id: 20, name: "long", state: CA, elapsed: 7, stepSignal: 15, node: "n4" },
  { id: 21, name: "held", state: CA, unstarted: true },
  { id: 22, name: "dep", state: CA, ineligible: true },
  { id: 23, name: "later", state: CA, ineligible: true },
  { id: 24, name: "big", cpus: 4, nodes: 4, state: CA, unstarted: true },
  { id: 25, name: "willfail", state: F, exit: 1, elapsed: 1 },
  { id: 26, name: "needsok", state: CA, ineligible: true },
  { id: 27, name: "first", elapsed: 2 },
  { id: 28, name: "second" },
  { id: 29, name: "wrap" },
  { id: 31, name: "wrap", state: F, exit: 1, unstarted: true },
  { id: 32, name: "toomanynodes", cpus: 5, nodes: 5, state: CA, unstarted: true },
  { id: 33, name: "toomanytasks", cpus: 100, state: CA, unstarted: true },
  { id: 34, name: "hugetime" },
  { id: 35, name: "wrap", state: F, exit: 1, unstarted: true },
  { id: 36, name: "wrap", state: F, exit: 1, unstarted: true },
  { id: 37, name: "heldcancel", state: CA, ineligible: true },
  { id: 38, name: "wrap" },
];

/** Job 37 ('heldcancel', -H then scancel) was submitted and ended at 12:36:25. */
function heldCancel(job: Job): Job {
  return job.jobId === 37 ? { ...job, submitTime: at("12:36:25"), endTime: at("12:36:25") } : job;
}

/** Job 25 as golden 115/118 show it: waited one second, ran one second. */
function willFail(job: Job): Job {
  if (job.jobId !== 25) return job;
  return { ...job, reason: "NonZeroExitCode", lastSchedEval: at("12:36:12"), command: "" };
}

/** Records in the controller's (id) order; the CLI sorts them itself. */
export function accountingJobs(): Job[] {
  return SPECS.map(build).map(heldCancel).map(willFail).sort((a, b) => a.jobId - b.jobId);
}
