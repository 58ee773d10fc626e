/**
 * @module format/json-jobs
 * `squeue --json`: every job record in the openapi v0.0.38 shape of Slurm
 * 22.05 (the 111 keys of golden 055, same order and JSON types). As in 22.05,
 * filters and formats do not apply to --json. Values Spur does not track get
 * the value Slurm shows when unset.
 */
import { sharedJsonText } from "../oversubscribe.ts";
import { formatArrayTasks } from "../array-spec.ts";
import { jobStateLong } from "../states.ts";
import { expectedEndTime, gresDetailOf, gresPerSocketText, gresPerTaskText, isPending, isRunning, isSuspended, type Job } from "./job-values.ts";
import { writeJsonText } from "./json-text.ts";
import { JsonDouble, type JsonValue, openapiMeta } from "./openapi-json.ts";

/** Raw wait(2) status as Slurm stores it: signal in the low bits, else code << 8. */
const waitStatus = (code: number, signal: number): number => (signal !== 0 ? signal : code << 8);

function billing(job: Job): JsonValue {
  const m = /(?:^|,)billing=(\d+)/.exec(job.tresAlloc);
  return m?.[1] === undefined ? null : new JsonDouble(Number(m[1]));
}

function jobResources(job: Job): Record<string, JsonValue> {
  if (isPending(job) || job.nodelist === "") return {};
  const cores = (n: number): Record<string, JsonValue> =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), "allocated"]));
  return {
    job_resources: {
      nodes: job.nodelist,
      allocated_cores: job.alloc.reduce((sum, a) => sum + a.cpus, 0),
      allocated_hosts: job.alloc.length,
      allocated_nodes: job.alloc.map((a) => ({
        sockets: { "0": { cores: cores(a.cpus) } },
        nodename: a.node,
        cpus_used: 0,
        memory_used: 0,
        memory_allocated: a.memMib,
      })),
    },
  };
}

const orNullNum = (n: number): JsonValue => (n === 0 ? null : n);

function head(job: Job, cluster: string): Record<string, JsonValue> {
  return {
    account: job.account,
    accrue_time: isPending(job) ? job.eligibleTime : 0,
    admin_comment: "",
    array_job_id: job.arrayJobId,
    array_task_id: job.arrayTaskId >= 0 ? job.arrayTaskId : null,
    array_max_tasks: job.arrayMaxTasks,
    array_task_string: job.arrayTaskStr,
    association_id: 0,
    batch_features: "",
    batch_flag: job.batchFlag,
    batch_host: job.batchHost,
    flags: isRunning(job) || isSuspended(job) ? ["JOB_WAS_RUNNING"] : [],
    burst_buffer: job.burstBuffer ?? "",
    burst_buffer_state: "",
    cluster,
    cluster_features: "",
    command: job.command,
    comment: job.comment,
    container: "",
    contiguous: false,
    core_spec: null,
    thread_spec: null,
    cores_per_socket: null,
    billable_tres: billing(job),
    cpus_per_task: job.cpusPerTask > 1 ? job.cpusPerTask : null,
    cpu_frequency_minimum: null,
    cpu_frequency_maximum: null,
    cpu_frequency_governor: null,
    cpus_per_tres: "",
    deadline: job.deadline,
    delay_boot: 0,
    dependency: job.dependency,
    derived_exit_code: waitStatus(job.derivedExitCode, 0),
    eligible_time: job.eligibleTime,
    end_time: expectedEndTime(job),
    excluded_nodes: job.excNodelist,
    exit_code: waitStatus(job.exitCode, job.exitSignal),
    features: job.features,
    federation_origin: "",
    federation_siblings_active: "",
    federation_siblings_viable: "",
    gres_detail: gresDetailOf(job, (held) => formatArrayTasks(held, 0, 0)),
    group_id: job.gid,
    group_name: job.group,
    job_id: job.jobId,
  };
}

function middle(job: Job): Record<string, JsonValue> {
  return {
    job_state: jobStateLong(job),
    last_sched_evaluation: job.lastSchedEval,
    licenses: job.licenses ?? "",
    max_cpus: 0,
    max_nodes: 0,
    mcs_label: "",
    memory_per_tres: "",
    name: job.name,
    nodes: job.nodelist,
    nice: orNullNum(job.nice),
    tasks_per_core: null,
    tasks_per_node: job.ntasksPerNode,
    tasks_per_socket: null,
    tasks_per_board: 0,
    cpus: job.numCpus,
    node_count: job.numNodes,
    tasks: job.numTasks,
    // a heterogeneous job's component (oracle, 22.05 --json: 672, "672-673", 1); 0, "", 0 otherwise
    het_job_id: job.hetJobId ?? 0,
    het_job_id_set: job.hetJobIdSet ?? "",
    het_job_offset: job.hetJobOffset ?? 0,
    partition: job.partition,
    prefer: job.prefer ?? "",
    memory_per_node: orNullNum(job.memPerNodeMib),
    memory_per_cpu: orNullNum(job.memPerCpuMib),
    minimum_cpus_per_node: Math.max(1, job.cpusPerTask),
    minimum_tmp_disk_per_node: 0,
    preempt_time: 0,
    pre_sus_time: job.preSusTime,
    priority: job.priority,
    profile: null,
    qos: job.qos,
    reboot: false,
    required_nodes: job.reqNodelist,
    requeue: job.requeue,
    resize_time: 0,
    restart_cnt: job.restarts,
    resv_name: job.reservation,
    shared: sharedJsonText(job),
    show_flags: ["SHOW_ALL", "SHOW_DETAIL", "SHOW_LOCAL"],
  };
}

function tail(job: Job): Record<string, JsonValue> {
  return {
    sockets_per_board: 0,
    sockets_per_node: null,
    start_time: job.startTime,
    state_description: "",
    state_reason: job.reason || "None",
    standard_error: job.stdErr,
    standard_input: job.stdIn,
    standard_output: job.stdOut,
    submit_time: job.submitTime,
    suspend_time: job.suspendTime,
    system_comment: "",
    time_limit: job.timeLimitMin ?? null,
    time_minimum: 0,
    threads_per_core: null,
    tres_bind: (job.tresBind ?? "").replace(/^gres\/gpu:/, "gpu:"),
    tres_freq: "",
    tres_per_job: job.tresPerJob,
    tres_per_node: job.tresPerNode,
    // as squeue's TRES_PER_SOCKET/TRES_PER_TASK print them (oracle 22.05: "gres:gpu:1", "gres:gpu:mi300x:1"; -c2 alone "")
    tres_per_socket: gresPerSocketText(job),
    tres_per_task: gresPerTaskText(job.tresPerTask ?? ""),
    tres_req_str: job.tresReq,
    tres_alloc_str: job.tresAlloc,
    user_id: job.uid,
    user_name: job.user,
    wckey: job.wckey,
    current_working_directory: job.workDir,
  };
}

/**
 * One job in the v0.0.38 shape (job_resources once it got nodes). Core
 * numbers inside job_resources are not tracked: cores 0..n-1 are listed.
 */
export function jobToOpenapi(job: Job, cluster: string): Record<string, JsonValue> {
  return { ...head(job, cluster), ...jobResources(job), ...middle(job), ...tail(job) };
}

/** The whole `squeue --json` document (no trailing newline). */
export function squeueJson(jobs: readonly Job[], cluster: string): string {
  return writeJsonText({
    meta: openapiMeta(),
    errors: [],
    jobs: jobs.map((j) => jobToOpenapi(j, cluster)),
  });
}
