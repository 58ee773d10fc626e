/**
 * @module rest/serialize-job
 * Spur's job record → slurmrestd's v0.0.4x `job_info`. The derived values
 * (state names, display id, exit status) come from the same helpers squeue's
 * and sacct's formats use (src/compat/format); only the v0.0.4x shape is here.
 * Values Spur does not track are "unset" number objects or empty strings, as
 * slurmrestd prints them for a job that did not ask for them.
 */
import type { Infer } from "./schema.ts";
import { infinite, noValue, value, valueOrUnset, type ExitCodeValue, type NoVal } from "./schemas-common.ts";
import { JOB_STATES, JobInfo } from "./schemas-job.ts";
import type { Job } from "../../compat/format/job-values.ts";
import { gresDetailOf, isPending } from "../../compat/format/job-values.ts";
import { formatArrayTasks } from "../../compat/array-spec.ts";
import { signalName } from "../../compat/signals.ts";

export type JobInfoValue = Infer<typeof JobInfo>;
type JobState = (typeof JOB_STATES)[number];
const STATE_SET: ReadonlySet<string> = new Set(JOB_STATES);


/** Exit status as data_parser's process_exit_code_verbose. */
export function exitCodeValue(code: number, signal: number, pending: boolean): ExitCodeValue {
  if (pending) return { status: ["PENDING"], return_code: noValue(), signal: { id: noValue(), name: "" } };
  if (signal !== 0) return { status: ["SIGNALED"], return_code: noValue(), signal: { id: value(signal), name: signalName(signal) === undefined ? "" : `SIG${signalName(signal)}` } };
  return { status: [code === 0 ? "SUCCESS" : "ERROR"], return_code: value(code), signal: { id: noValue(), name: "" } };
}

/** Base state then its flags, as data_parser writes job_state (e.g. ["RUNNING","COMPLETING"]). */
export function jobStateArray(job: Job): JobState[] {
  const out: JobState[] = [];
  for (const s of [job.state.toUpperCase(), ...job.stateFlags.map((f) => f.toUpperCase())]) {
    if (STATE_SET.has(s)) out.push(s as JobState);
  }
  return out;
}

const time = (t: number): NoVal => (t > 0 ? value(Math.floor(t)) : value(0));
function billing(job: Job): JobInfoValue["billable_tres"] {
  const m = /(?:^|,)billing=(\d+)/.exec(job.tresAlloc);
  return m?.[1] === undefined ? { set: false, infinite: false, number: 0 } : { set: true, infinite: false, number: Number(m[1]) };
}

/**
 * One job in the v0.0.4x `job_info` shape. One object literal, no spreads:
 * this runs 10k times per GET /jobs (see bench/rest.ts).
 */
export function jobInfo(job: Job, cluster: string): JobInfoValue {
  const pending = isPending(job);
  const isArray = job.arrayJobId !== 0;
  const out: JobInfoValue = {
    account: job.account, accrue_time: time(pending ? job.eligibleTime : 0), admin_comment: "", allocating_node: "",
    array_job_id: value(isArray ? job.arrayJobId : 0), array_task_id: isArray && job.arrayTaskId >= 0 ? value(job.arrayTaskId) : noValue(),
    array_max_tasks: value(job.arrayMaxTasks), array_task_string: job.arrayTaskStr, association_id: 0, batch_features: "",
    batch_flag: job.batchFlag, batch_host: job.batchHost, flags: [], burst_buffer: job.burstBuffer ?? "", burst_buffer_state: "", cluster,
    cluster_features: "", command: job.command, comment: job.comment, container: "", container_id: "", contiguous: false,
    cores_per_socket: noValue(), billable_tres: billing(job), cpus_per_task: value(Math.max(1, job.cpusPerTask)),
    cpu_frequency_minimum: noValue(), cpu_frequency_maximum: noValue(), cpu_frequency_governor: noValue(), cpus_per_tres: "",
    deadline: time(job.deadline), delay_boot: value(0), dependency: job.dependency,
    derived_exit_code: exitCodeValue(job.derivedExitCode, 0, pending), eligible_time: time(job.eligibleTime),
    end_time: time(job.endTime), excluded_nodes: job.excNodelist, exit_code: exitCodeValue(job.exitCode, job.exitSignal, pending),
    extra: "", failed_node: "", features: job.features, federation_origin: "", federation_siblings_active: "",
    federation_siblings_viable: "", gres_detail: job.alloc.length === 0 ? [] : gresDetailOf(job, (held) => formatArrayTasks(held, 0, 0)), group_id: job.gid, group_name: job.group,
    het_job_id: value(job.hetJobId ?? 0), het_job_id_set: job.hetJobIdSet ?? "", het_job_offset: job.hetJobId ? value(job.hetJobOffset ?? 0) : noValue(), job_id: job.jobId, job_size_str: [],
    job_state: jobStateArray(job), last_sched_evaluation: time(job.lastSchedEval), licenses: job.licenses ?? "", mail_type: [], mail_user: "",
    max_cpus: value(0), max_nodes: value(0), mcs_label: "", memory_per_tres: "", name: job.name, network: "",
    nodes: job.nodelist, nice: job.nice, tasks_per_core: noValue(), tasks_per_tres: noValue(),
    tasks_per_node: valueOrUnset(job.ntasksPerNode), tasks_per_socket: noValue(), tasks_per_board: value(0),
    cpus: value(job.numCpus), node_count: value(job.numNodes), tasks: value(job.numTasks), partition: job.partition,
    prefer: job.prefer ?? "", memory_per_cpu: valueOrUnset(job.memPerCpuMib), memory_per_node: valueOrUnset(job.memPerNodeMib),
    minimum_cpus_per_node: value(Math.max(1, job.cpusPerTask)), minimum_tmp_disk_per_node: value(0), preempt_time: value(0),
    preemptable_time: value(0), pre_sus_time: time(job.preSusTime), hold: job.heldByAdmin || job.reason === "JobHeldUser",
    priority: value(job.priority), profile: [], qos: job.qos, reboot: false, required_nodes: job.reqNodelist,
    required_switches: 0, requeue: job.requeue, resize_time: value(0), restart_cnt: job.restarts, resv_name: job.reservation,
    scheduled_nodes: "", selinux_context: "", shared: job.exclusive ? ["none"] : job.exclusiveUser ? ["user"] : [], sockets_per_board: 0,
    sockets_per_node: noValue(), start_time: time(job.startTime), state_description: "", state_reason: job.reason || "None",
    standard_input: job.stdIn, standard_output: job.stdOut, standard_error: job.stdErr, stdin_expanded: job.stdIn,
    stdout_expanded: job.stdOut, stderr_expanded: job.stdErr, submit_time: time(job.submitTime), suspend_time: time(job.suspendTime),
    system_comment: "", time_limit: job.timeLimitMin === undefined ? infinite() : value(job.timeLimitMin), time_minimum: value(0),
    threads_per_core: noValue(), tres_bind: job.tresBind ?? "", tres_freq: "", tres_per_job: job.tresPerJob, tres_per_node: job.tresPerNode,
    tres_per_socket: job.tresPerSocket ?? "", tres_per_task: job.tresPerTask ?? "", tres_req_str: job.tresReq, tres_alloc_str: job.tresAlloc, user_id: job.uid,
    user_name: job.user, maximum_switch_wait_time: 0, wckey: job.wckey, current_working_directory: job.workDir,
  };
  if (!pending && job.nodelist !== "") {
    out.job_resources = {
      select_type: ["CPU", "MEMORY"],
      nodes: {
        count: job.numNodes, select_type: [], list: job.nodelist, whole: job.exclusive,
        allocation: job.alloc.map((a, index) => ({ index, name: a.node, cpus: { count: a.cpus, used: 0 }, memory: { used: 0, allocated: a.memMib } })),
      },
      cpus: job.numCpus,
      threads_per_core: value(1),
    };
  }
  return out;
}
