/**
 * @module format/json-sacct
 * `sacct --json` in the openapi dbv0.0.38 shape of Slurm 22.05 (golden 115):
 * same keys, order and JSON types; TRES as {type,name,id,count} lists ordered
 * by Slurm's TRES ids. Usage statistics Spur does not collect print as 0,
 * unset strings as null, as 22.05 does for empty database columns.
 */
import { expandHostlist } from "../hostlist.ts";
import { type JsonValue, SLURM_COMPAT_RELEASE } from "./openapi-json.ts";
import { writeJsonText } from "./json-text.ts";
import { lastPendingReason } from "./sacct-fields.ts";
import { jobEnd, jobStart, rowElapsed, stepEnd, stepOrder, type Job, type SacctRow, type Step } from "./sacct-row.ts";
import { signalName } from "../signals.ts";

/** Slurm's fixed TRES ids; gres/* types are numbered from 1001 on. */
const TRES_IDS: Readonly<Record<string, number>> = {
  cpu: 1, mem: 2, energy: 3, node: 4, billing: 5, "fs/disk": 6, vmem: 7, pages: 8,
};
const GRES_ID_BASE = 1001;


const orNull = (text: string): JsonValue => (text === "" ? null : text);

/** {status, return_code} (plus the signal when one ended the process). */
function exitJson(code: number, signal: number): JsonValue {
  if (signal !== 0) {
    return { status: "SIGNALED", return_code: 0, signal: { signal_id: signal, name: signalName(signal) ?? "" } };
  }
  return { status: code === 0 ? "SUCCESS" : "FAILED", return_code: code };
}

/** "256M" → 256 (MiB), "1G" → 1024, "16" → 16. */
function tresCount(name: string, value: string): number {
  if (name !== "mem") return Number(value) || 0;
  const m = /^(\d+)([KMGTP]?)$/.exec(value);
  if (!m) return 0;
  const scale: Record<string, number> = { K: 1 / 1024, "": 1, M: 1, G: 1024, T: 1024 ** 2, P: 1024 ** 3 };
  return Math.round(Number(m[1]) * (scale[m[2] ?? ""] ?? 1));
}

interface TresItem {
  id: number;
  json: JsonValue;
}

/** "cpu=1,mem=256M,node=1,billing=1,gres/gpu=2" → items sorted by TRES id. */
function tresList(tres: string, withEnergy: boolean): JsonValue[] {
  const items: TresItem[] = [];
  let gresSeen = 0;
  for (const part of tres.split(",").filter((p) => p.includes("="))) {
    const [name = "", value = ""] = part.split("=");
    const slash = name.indexOf("/");
    const type = slash < 0 ? name : name.slice(0, slash);
    const sub = slash < 0 ? null : name.slice(slash + 1);
    const id = TRES_IDS[name] ?? GRES_ID_BASE + gresSeen++;
    items.push({ id, json: { type, name: sub, id, count: tresCount(name, value) } });
  }
  if (withEnergy && items.length > 0) items.push({ id: 3, json: { type: "energy", name: null, id: 3, count: null } });
  return items.sort((a, b) => a.id - b.id).map((i) => i.json);
}

const cpuTime = (): JsonValue => ({ seconds: 0, microseconds: 0 });
const energyZero = (): JsonValue[] => [{ type: "energy", name: null, id: 3, count: 0 }];
const usage = (): JsonValue => ({ max: [], min: [], average: energyZero(), total: energyZero() });

function stepJson(job: Job, step: Step, now: number): JsonValue {
  const names = expandHostlist(step.nodelist);
  const list = names.ok ? names.value : [];
  const row: SacctRow = { job, step, now, cluster: "" };
  const stepId: JsonValue = step.stepId === -5 ? "batch" : step.stepId === -4 ? "extern" : step.stepId === -6 ? "interactive" : step.stepId;
  return {
    nodes: { list, count: list.length, range: step.nodelist },
    tres: { requested: usage(), consumed: usage(), allocated: tresList(step.tres, false) },
    time: {
      elapsed: rowElapsed(row), end: stepEnd(row), start: Math.floor(step.startTime), suspended: 0,
      system: cpuTime(), total: cpuTime(), user: cpuTime(),
    },
    exit_code: exitJson(step.exitCode, step.exitSignal),
    tasks: { count: step.ntasks },
    pid: null,
    CPU: { requested_frequency: { min: 0, max: 0 }, governor: [] },
    kill_request_user: null,
    state: step.state.toUpperCase(),
    statistics: { CPU: { actual_frequency: 0 }, energy: { consumed: 0 } },
    step: { job_id: job.jobId, het: { component: null }, id: stepId, name: step.name },
    task: { distribution: "Unknown" },
  };
}

function timeJson(job: Job, now: number): JsonValue {
  return {
    elapsed: rowElapsed({ job, step: undefined, now, cluster: "" }),
    eligible: Math.floor(job.eligibleTime),
    end: jobEnd(job),
    start: jobStart(job),
    submission: Math.floor(job.submitTime),
    suspended: 0,
    system: cpuTime(),
    limit: job.timeLimitMin ?? null,
    total: cpuTime(),
    user: cpuTime(),
  };
}

/** Who cancelled the job: its owner's name when the uid is the owner's. */
function killUser(job: Job): JsonValue {
  if (job.cancelledBy === "") return null;
  return job.cancelledBy === String(job.uid) ? job.user : job.cancelledBy;
}

function jobJson(job: Job, cluster: string, now: number): JsonValue {
  const started = jobStart(job) !== 0 && job.nodelist !== "";
  const steps = [...job.steps].sort((a, b) => stepOrder(a.stepId) - stepOrder(b.stepId));
  return {
    account: job.account,
    comment: { administrator: null, job: orNull(job.comment), system: null },
    allocation_nodes: started ? job.numNodes : 0,
    array: {
      job_id: job.arrayJobId,
      limits: { max: { running: { tasks: job.arrayMaxTasks } } },
      task: orNull(job.arrayTaskStr),
      task_id: job.arrayTaskId >= 0 ? job.arrayTaskId : null,
    },
    association: { account: job.account, cluster, partition: null, user: job.user },
    cluster,
    constraints: job.features,
    container: null,
    derived_exit_code: exitJson(job.derivedExitCode, 0),
    time: timeJson(job, now),
    exit_code: exitJson(job.exitCode, job.exitSignal),
    flags: started ? ["CLEAR_SCHEDULING", "STARTED_ON_SCHEDULE"] : ["CLEAR_SCHEDULING"],
    group: job.group,
    // a heterogeneous job's component (oracle, 22.05: {job_id: 675, job_offset: 1}); {0, null} otherwise
    het: job.hetJobId ? { job_id: job.hetJobId, job_offset: job.hetJobOffset ?? 0 } : { job_id: 0, job_offset: null },
    job_id: job.jobId,
    name: job.name,
    mcs: { label: "" },
    nodes: job.nodelist || "None assigned",
    partition: job.partition,
    priority: job.priority,
    qos: job.qos,
    required: { CPUs: job.numCpus, memory: job.memPerNodeMib || job.memPerCpuMib },
    kill_request_user: killUser(job),
    reservation: { id: 0, name: job.reservation === "" ? 0 : job.reservation },
    state: { current: job.state.toUpperCase(), reason: lastPendingReason(job) },
    steps: steps.map((s) => stepJson(job, s, now)),
    tres: { allocated: tresList(job.tresAlloc, true), requested: tresList(job.tresReq, false) },
    user: job.user,
    wckey: { wckey: job.wckey, flags: [] },
    working_directory: job.workDir,
  };
}

/** The whole `sacct --json` document (no trailing newline). */
export function sacctJson(jobs: readonly Job[], cluster: string, now: number): string {
  const release = SLURM_COMPAT_RELEASE;
  const meta: JsonValue = {
    plugin: { type: "openapi/dbv0.0.38", name: "Slurm OpenAPI DB v0.0.38" },
    Slurm: { version: { major: release.major, micro: release.micro, minor: release.minor }, release: release.release },
  };
  return writeJsonText({ meta, errors: [], jobs: jobs.map((j) => jobJson(j, cluster, now)) });
}
