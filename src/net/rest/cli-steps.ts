/**
 * @module rest/cli-steps
 * `scontrol --json show steps [J[.S]]` (and `scontrol show step --json`): data_parser's
 * `openapi_step_info_msg` (OPENAPI_STEP_INFO_MSG, read from v0.0.45 parsers.c), i.e. `steps` (one `step_info` per running step, the records
 * `scontrol show step` prints) and `last_update`, in the envelope of the other --json
 * commands. slurmrestd serves no path for it, so openapi.ts publishes it as a component
 * only (CLI_ONLY_SCHEMAS). Values Spur does not track are unset number objects or "".
 */
import type { Job } from "../../compat/format/job-values.ts";
import { arr, int32, named, obj, str, strEnum } from "./schema.ts";
import { Uint32NoVal, Uint64NoVal, envelopeProps, infinite, noValue, value, type NoVal } from "./schemas-common.ts";
import { JOB_STATES } from "./schemas-job.ts";

type Step = Job["steps"][number];

const STEP_NAMES: Readonly<Record<number, string>> = { [-5]: "batch", [-4]: "extern", [-6]: "interactive" };

export const StepInfo = named(
  "step_info",
  obj({
    array: obj({ job_id: int32(), task_id: int32() }),
    cluster: str(), container: str(), container_id: str(),
    cpu: obj({ frequency: obj({ min: Uint32NoVal, max: Uint32NoVal, governor: Uint32NoVal }) }),
    name: str(), network: str(), nodes: str(), number_cpus: int32(), number_tasks: int32(), partition: str(),
    reserved_ports: str(),
    time: obj({ running: Uint64NoVal, start: Uint64NoVal, limit: Uint32NoVal }),
    srun: obj({ host: str(), pid: int32() }),
    state: arr(strEnum(JOB_STATES)), id: str(), stderr: str(), stdin: str(), stdout: str(),
    stderr_expanded: str(), stdin_expanded: str(), stdout_expanded: str(), submit_line: str(),
    task: obj({ distribution: str() }),
    tres: obj({
      allocation: str(), binding: str(), frequency: str(),
      per: obj({ cpu: str(), memory: str(), step: str(), node: str(), socket: str(), task: str() }),
    }),
    user: str(),
  }),
);

export const StepInfoResp = named("openapi_step_info_msg", obj({ steps: arr(StepInfo, 1_000_000), last_update: Uint64NoVal, ...envelopeProps }, ["steps", "last_update"]));

/** `scontrol --json listpids`: OPENAPI_LISTPIDS_INFO_RESP (`pids`, one listpids_info per process). */
export const ListPidsInfo = named(
  "listpids_info",
  obj({ global_task_id: Uint32NoVal, local_task_id: Uint32NoVal, job_id: int32(), pid: int32(), step_id: str() }),
);
export const ListPidsResp = named("openapi_listpids_info_resp", obj({ pids: arr(ListPidsInfo, 1_000_000), ...envelopeProps }, ["pids"]));

/** One listpids row; a task id of -1 (a process that is not a task) is unset, as Slurm's NO_VAL. */
export function listPidsValue(r: { pid: number; jobId: number; step: string; localId: number; globalId: number }) {
  return {
    global_task_id: r.globalId < 0 ? noValue() : value(r.globalId), local_task_id: r.localId < 0 ? noValue() : value(r.localId),
    job_id: r.jobId, pid: r.pid, step_id: r.step,
  };
}

const stepIdText = (s: Step): string => `${s.jobId}.${STEP_NAMES[s.stepId] ?? s.stepId}`;
const limit = (job: Job): NoVal => (job.timeLimitMin === undefined ? infinite() : value(job.timeLimitMin));

/** One running step as data_parser's step_info. */
export function stepInfoValue(job: Job, s: Step, cluster: string, nowSec: number) {
  const start = Math.floor(s.startTime);
  return {
    array: { job_id: job.arrayJobId, task_id: job.arrayTaskId >= 0 && job.arrayJobId !== 0 ? job.arrayTaskId : 0 },
    cluster, container: "", container_id: "",
    cpu: { frequency: { min: noValue(), max: noValue(), governor: noValue() } },
    name: s.name, network: "", nodes: s.nodelist, number_cpus: s.cpus, number_tasks: s.ntasks, partition: job.partition,
    reserved_ports: "",
    time: { running: value(start > 0 ? Math.max(0, Math.floor(nowSec) - start) : 0), start: value(start), limit: limit(job) },
    srun: { host: s.srunHost ?? "", pid: s.srunPid ?? 0 },
    state: [s.state.toUpperCase()].filter((x): x is (typeof JOB_STATES)[number] => (JOB_STATES as readonly string[]).includes(x)),
    id: stepIdText(s), stderr: "", stdin: "", stdout: "", stderr_expanded: "", stdin_expanded: "", stdout_expanded: "",
    submit_line: "", task: { distribution: s.distribution || "Block" },
    tres: { allocation: s.tres, binding: s.tresBind ?? "", frequency: "", per: { cpu: "", memory: "", step: "", node: "", socket: "", task: "" } },
    user: job.user,
  };
}
