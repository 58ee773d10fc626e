/**
 * @module rest/schemas-job
 * Job shapes of slurmrestd's data_parser v0.0.4x: job_info (GET /jobs),
 * job_desc_msg (POST /job/submit, /job/allocate, /job/{id}), and the submit,
 * update and kill responses. Field names and enum spellings are Slurm's.
 */
import { arr, bool, inVersions, int32, int64, named, obj, str, strEnum } from "./schema.ts";
import { ExitCode, Float64NoVal, Uint16NoVal, Uint32NoVal, Uint64NoVal, envelopeProps } from "./schemas-common.ts";

export const JOB_STATES = [
  "PENDING", "RUNNING", "SUSPENDED", "COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL",
  "DEADLINE", "OUT_OF_MEMORY", "LAUNCH_FAILED", "REQUEUED", "REQUEUE_HOLD", "SPECIAL_EXIT", "RESIZING", "CONFIGURING",
  "COMPLETING", "STOPPED", "RECONFIG_FAIL", "POWER_UP_NODE", "REVOKED", "REQUEUE_FED", "RESV_DEL_HOLD", "SIGNALING",
  "STAGE_OUT", "EXPEDITING",
] as const;

export const MAIL_TYPES = [
  "BEGIN", "END", "FAIL", "REQUEUE", "TIME=100%", "TIME=90%", "TIME=80%", "TIME=50%", "STAGE_OUT", "ARRAY_TASKS", "INVALID_DEPENDENCY",
] as const;

const JobResNode = named(
  "job_res_node",
  obj({ index: int32(), name: str(), cpus: obj({ count: int32(), used: int32() }), memory: obj({ used: int64(), allocated: int64() }) }),
);

const JobResources = named("job_res", obj({
  select_type: arr(strEnum(["CPU", "SOCKET", "CORE", "BOARD", "MEMORY", "ONE_TASK_PER_CORE", "PACK_NODES", "CORE_DEFAULT_DIST_BLOCK", "LLN", "LINEAR"])),
  nodes: obj({ count: int32(), select_type: arr(strEnum(["AVAILABLE", "ONE_ROW", "RESERVED"])), list: str(), whole: bool(), allocation: arr(JobResNode) }),
  cpus: int32(),
  threads_per_core: Uint16NoVal,
}));

export const JobInfo = named(
  "job_info",
  obj({
    account: str(), accrue_time: Uint64NoVal, admin_comment: str(), allocating_node: str(),
    array_job_id: Uint32NoVal, array_task_id: Uint32NoVal, array_max_tasks: Uint32NoVal, array_task_string: str(),
    association_id: int32(), batch_features: str(), batch_flag: bool(), batch_host: str(), flags: arr(str()),
    burst_buffer: str(), burst_buffer_state: str(), cluster: str(), cluster_features: str(), command: str(),
    comment: str(), container: str(), container_id: str(), contiguous: bool(), core_spec: int32(), thread_spec: int32(),
    cores_per_socket: Uint16NoVal, billable_tres: Float64NoVal, cpus_per_task: Uint16NoVal,
    cpu_frequency_minimum: Uint32NoVal, cpu_frequency_maximum: Uint32NoVal, cpu_frequency_governor: Uint32NoVal,
    cpus_per_tres: str(), deadline: Uint64NoVal, delay_boot: Uint32NoVal, dependency: str(),
    derived_exit_code: ExitCode, eligible_time: Uint64NoVal, end_time: Uint64NoVal, excluded_nodes: str(),
    exit_code: ExitCode, extra: str(), failed_node: str(), features: str(), federation_origin: str(),
    federation_siblings_active: str(), federation_siblings_viable: str(), gres_detail: arr(str()),
    group_id: int32(), group_name: str(), het_job_id: Uint32NoVal, het_job_id_set: str(), het_job_offset: Uint32NoVal,
    job_id: int32(), job_resources: JobResources, job_size_str: arr(str()), job_state: arr(strEnum(JOB_STATES)),
    last_sched_evaluation: Uint64NoVal, licenses: str(), mail_type: arr(strEnum(MAIL_TYPES)), mail_user: str(),
    max_cpus: Uint32NoVal, max_nodes: Uint32NoVal, mcs_label: str(), memory_per_tres: str(), name: str(),
    network: str(), nodes: str(), nice: int32(), tasks_per_core: Uint16NoVal, tasks_per_tres: Uint16NoVal,
    tasks_per_node: Uint16NoVal, tasks_per_socket: Uint16NoVal, tasks_per_board: Uint16NoVal, cpus: Uint32NoVal,
    node_count: Uint32NoVal, tasks: Uint32NoVal, partition: str(), prefer: str(), memory_per_cpu: Uint64NoVal,
    memory_per_node: Uint64NoVal, minimum_cpus_per_node: Uint16NoVal, minimum_tmp_disk_per_node: Uint32NoVal,
    preempt_time: Uint64NoVal, preemptable_time: Uint64NoVal, pre_sus_time: Uint64NoVal, hold: bool(),
    priority: Uint32NoVal, profile: arr(strEnum(["NOT_SET", "NONE", "ENERGY", "LUSTRE", "NETWORK", "TASK"])), qos: str(), reboot: bool(), required_nodes: str(),
    required_switches: int32(), requeue: bool(), resize_time: Uint64NoVal, restart_cnt: int32(), resv_name: str(),
    scheduled_nodes: str(), selinux_context: str(), shared: arr(str()), sockets_per_board: int32(),
    sockets_per_node: Uint16NoVal, start_time: Uint64NoVal, state_description: str(), state_reason: str(),
    standard_input: str(), standard_output: str(), standard_error: str(),
    // Not in v0.0.42's job_info (checked against its published spec); kept from v0.0.43 on.
    stdin_expanded: inVersions(str(), 43), stdout_expanded: inVersions(str(), 43), stderr_expanded: inVersions(str(), 43), submit_time: Uint64NoVal, suspend_time: Uint64NoVal,
    system_comment: str(), time_limit: Uint32NoVal, time_minimum: Uint32NoVal, threads_per_core: Uint16NoVal,
    tres_bind: str(), tres_freq: str(), tres_per_job: str(), tres_per_node: str(), tres_per_socket: str(),
    tres_per_task: str(), tres_req_str: str(), tres_alloc_str: str(), user_id: int32(), user_name: str(),
    maximum_switch_wait_time: int32(), wckey: str(), current_working_directory: str(),
  }),
);

export const JobInfoResp = named(
  "openapi_job_info_resp",
  obj({ jobs: arr(JobInfo, 1_000_000), last_backfill: Uint64NoVal, last_update: Uint64NoVal, ...envelopeProps }, ["jobs", "last_backfill", "last_update"]),
);

/** Paths and names are bounded (PATH_MAX); scripts may be large, arrays of names less so. */
const PATH_MAX = 4096;
const names = () => arr(str(PATH_MAX), 4096);

export const JobDescMsg = named(
  "job_desc_msg",
  obj({
    account: str(256), argv: arr(str(), 4096), array: str(4096), begin_time: Uint64NoVal, comment: str(4096),
    constraints: str(4096), cpus_per_task: int32(), current_working_directory: str(PATH_MAX), deadline: int64(),
    dependency: str(4096), environment: arr(str(), 4096), excluded_nodes: names(), hold: bool(), immediate: bool(),
    licenses: str(1024), mail_type: arr(strEnum(MAIL_TYPES), 16), mail_user: str(256), maximum_nodes: int32(),
    memory_per_cpu: Uint64NoVal, memory_per_node: Uint64NoVal, minimum_nodes: int32(), name: str(1024), nice: int32(),
    nodes: str(64), open_mode: arr(strEnum(["APPEND", "TRUNCATE"]), 2), partition: str(256), priority: Uint32NoVal,
    qos: str(256), requeue: bool(), required_nodes: names(), reservation: str(256), script: str(),
    shared: arr(strEnum(["none", "oversubscribe", "user", "mcs", "topo"]), 4), standard_error: str(PATH_MAX),
    standard_input: str(PATH_MAX), standard_output: str(PATH_MAX), tasks: int32(), tasks_per_node: int32(),
    threads_per_core: int32(), time_limit: Uint32NoVal, time_minimum: Uint32NoVal, tres_per_job: str(1024),
    tres_per_node: str(1024), tres_per_task: str(1024), user_id: str(64), group_id: str(64), wckey: str(256),
  }),
);

export const JobSubmitReq = named("job_submit_req", obj({ script: str(), jobs: arr(JobDescMsg, 1), job: JobDescMsg }));
export const JobAllocReq = named("job_alloc_req", obj({ hetjob: arr(JobDescMsg, 1), job: JobDescMsg }));

export const JobSubmitResp = named(
  "openapi_job_submit_response",
  obj({ job_id: int32(), step_id: str(), job_submit_user_msg: str(), ...envelopeProps }),
);
export const JobAllocResp = named(
  "openapi_job_alloc_resp",
  obj({ job_id: int32(), job_submit_user_msg: str(), ...envelopeProps }),
);

export const JobPostResp = named(
  "openapi_job_post_response",
  obj({
    results: arr(obj({ job_id: int32(), step_id: str(), error_code: int32(), error: str(), why: str() })),
    job_id: str(), step_id: str(), job_submit_user_msg: str(), ...envelopeProps,
  }),
);

const KillJobsRespJob = named(
  "kill_jobs_resp_job",
  obj({ error: obj({ string: str(), code: int32(), message: str() }), step_id: str(), job_id: Uint32NoVal, federation: obj({ sibling: str() }) }),
);

export const KillJobResp = named("openapi_kill_job_resp", obj({ status: arr(KillJobsRespJob), ...envelopeProps }, ["status"]));

export const JobsStateResp = named(
  "openapi_job_state_resp",
  obj({ jobs: arr(obj({ job_id: str(), state: arr(strEnum(JOB_STATES)) }), 1_000_000), ...envelopeProps }, ["jobs"]),
);

export const KillJobsMsg = named(
  "kill_jobs_msg",
  obj({
    account: str(256), flags: arr(strEnum(["BATCH_JOB", "ARRAY_TASK", "FULL_STEPS_ONLY", "FULL_JOB", "FEDERATION_REQUEUE", "HURRY", "OUT_OF_MEMORY", "NO_SIBLING_JOBS", "RESERVATION_JOB", "VERBOSE", "CRON_JOBS", "WARNING_SENT"]), 16),
    job_name: str(1024), jobs: arr(str(64), 10_000), partition: str(256), qos: str(256), reservation: str(256),
    signal: str(32), job_state: arr(strEnum(JOB_STATES), 32), user_id: str(64), user_name: str(256), wckey: str(256), nodes: arr(str(256), 10_000),
  }),
);

export const KillJobsResp = named("openapi_kill_jobs_resp", obj({ status: arr(KillJobsRespJob), ...envelopeProps }, ["status"]));
