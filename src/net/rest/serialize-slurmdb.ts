/**
 * @module rest/serialize-slurmdb
 * Spur's job records → slurmdbd's v0.0.4x accounting `job` (sacct's data),
 * using the same start/end/elapsed rules as `sacct` (compat/format/sacct-row).
 * TRES strings ("cpu=2,mem=512M,gres/gpu=1") become {type,name,id,count} lists
 * with Slurm's fixed ids (cpu 1, mem 2, energy 3, node 4, billing 5, gres 1001+).
 */
import type { Infer } from "./schema.ts";
import { noValue, value, infinite } from "./schemas-common.ts";
import { DbJob, Step, Tres } from "./schemas-slurmdb.ts";
import { JOB_STATES } from "./schemas-job.ts";
import { exitCodeValue, jobStateArray } from "./serialize-job.ts";
import { jobEnd, jobStart, rowElapsed, stepEnd, stepOrder, type Job, type Step as SpurStep } from "../../compat/format/sacct-row.ts";
import { lastPendingReason } from "../../compat/format/sacct-fields.ts";
import { expandHostlist } from "../../compat/hostlist.ts";
import { isPending } from "../../compat/format/job-values.ts";

export type DbJobValue = Infer<typeof DbJob>;
type TresValue = Infer<typeof Tres>;
type StepValue = Infer<typeof Step>;
type JobState = (typeof JOB_STATES)[number];

const TRES_IDS: Readonly<Record<string, number>> = { cpu: 1, mem: 2, energy: 3, node: 4, billing: 5, "fs/disk": 6, vmem: 7, pages: 8 };
const MEM_SCALE: Readonly<Record<string, number>> = { K: 1 / 1024, "": 1, M: 1, G: 1024, T: 1024 ** 2 };

export function tresListValue(tres: string): TresValue[] {
  const out: TresValue[] = [];
  let gres = 0;
  for (const part of tres.split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq);
    const raw = part.slice(eq + 1);
    const slash = name.indexOf("/");
    const m = /^(\d+)([KMGT]?)$/.exec(raw);
    const count = m === null ? 0 : name === "mem" ? Math.round(Number(m[1]) * (MEM_SCALE[m[2] ?? ""] ?? 1)) : Number(m[1]);
    out.push({ type: slash < 0 ? name : name.slice(0, slash), name: slash < 0 ? "" : name.slice(slash + 1), id: TRES_IDS[name] ?? 1001 + gres++, count });
  }
  return out.sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
}

const cpuTime = () => ({ seconds: 0, microseconds: 0 });
const STEP_NAMES: Readonly<Record<number, string>> = { [-5]: "batch", [-4]: "extern", [-6]: "interactive" };

function stepValue(job: Job, s: SpurStep, nowSec: number): StepValue {
  const names = expandHostlist(s.nodelist);
  const list = names.ok ? names.value : [];
  const row = { job, step: s, now: nowSec, cluster: "" };
  const state = s.state.toUpperCase();
  return {
    time: { elapsed: rowElapsed(row), end: value(stepEnd(row)), start: value(Math.floor(s.startTime)), suspended: 0, system: cpuTime(), limit: job.timeLimitMin === undefined ? infinite() : value(job.timeLimitMin), total: cpuTime(), user: cpuTime() },
    exit_code: exitCodeValue(s.exitCode, s.exitSignal, false),
    nodes: { count: list.length, range: s.nodelist, list },
    tasks: { count: s.ntasks },
    kill_request_user: "",
    state: (JOB_STATES as readonly string[]).includes(state) ? [state as JobState] : [],
    step: { id: `${job.jobId}.${STEP_NAMES[s.stepId] ?? s.stepId}`, name: s.name },
    tres: { allocated: tresListValue(s.tres), requested: [] },
  };
}

export function dbJobValue(job: Job, cluster: string, nowSec: number): DbJobValue {
  const started = jobStart(job) !== 0 && job.nodelist !== "";
  const steps = [...job.steps].sort((a, b) => stepOrder(a.stepId) - stepOrder(b.stepId));
  const pending = isPending(job);
  return {
    account: job.account, comment: { administrator: "", job: job.comment, system: "" }, allocation_nodes: started ? job.numNodes : 0,
    array: { job_id: job.arrayJobId, limits: { max: { running: { tasks: job.arrayMaxTasks } } }, task_id: job.arrayTaskId >= 0 ? value(job.arrayTaskId) : noValue(), task: job.arrayTaskStr },
    association: { account: job.account, cluster, partition: job.partition, user: job.user, id: 0 },
    cluster, constraints: job.features, derived_exit_code: exitCodeValue(job.derivedExitCode, 0, pending),
    time: {
      elapsed: rowElapsed({ job, step: undefined, now: nowSec, cluster }), eligible: Math.floor(job.eligibleTime), end: jobEnd(job),
      planned: value(started ? Math.max(0, jobStart(job) - Math.floor(job.eligibleTime)) : 0), start: jobStart(job),
      submission: Math.floor(job.submitTime), suspended: 0, system: cpuTime(),
      limit: job.timeLimitMin === undefined ? infinite() : value(job.timeLimitMin), total: cpuTime(), user: cpuTime(),
    },
    exit_code: exitCodeValue(job.exitCode, job.exitSignal, pending),
    flags: started ? ["STARTED_ON_SCHEDULE"] : [], group: job.group, het: { job_id: 0, job_offset: noValue() },
    job_id: job.jobId, name: job.name, nodes: job.nodelist || "None assigned", partition: job.partition,
    hold: job.heldByAdmin || job.reason === "JobHeldUser", priority: value(job.priority), qos: job.qos,
    required: { CPUs: job.numCpus, memory_per_cpu: job.memPerCpuMib > 0 ? value(job.memPerCpuMib) : noValue(), memory_per_node: job.memPerNodeMib > 0 ? value(job.memPerNodeMib) : noValue() },
    kill_request_user: job.cancelledBy === "" ? "" : job.cancelledBy === String(job.uid) ? job.user : job.cancelledBy,
    restart_cnt: job.restarts, reservation: { id: 0, name: job.reservation },
    state: { current: jobStateArray(job).slice(0, 1), reason: lastPendingReason(job) },
    steps: steps.map((s) => stepValue(job, s, nowSec)), submit_line: job.submitLine,
    tres: { allocated: tresListValue(job.tresAlloc), requested: tresListValue(job.tresReq) },
    user: job.user, wckey: { wckey: job.wckey, flags: [] }, working_directory: job.workDir,
    stdout: job.stdOut, stderr: job.stdErr, stdin: job.stdIn,
  };
}
