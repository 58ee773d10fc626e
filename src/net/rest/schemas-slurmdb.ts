/**
 * @module rest/schemas-slurmdb
 * The /slurmdb/ side of data_parser v0.0.4x: accounting job records (sacct's
 * data), and the accounts, users, QOS, associations, clusters, TRES, config
 * and diag responses. Spur keeps accounting in the controller, so these are
 * derived from its job records and configuration.
 */
import { arr, bool, int32, int64, named, num, obj, str, strEnum } from "./schema.ts";
import { ExitCode, Uint32NoVal, Uint64NoVal, envelopeProps } from "./schemas-common.ts";
import { JOB_STATES } from "./schemas-job.ts";

export const Tres = named("tres", obj({ type: str(), name: str(), id: int32(), count: int64() }, ["type"]));
export const TresList = named("tres_list", arr(Tres));

const tresGroup = obj({ allocated: TresList, requested: TresList });
const cpuTime = obj({ seconds: int64(), microseconds: int32() });

export const Step = named(
  "step",
  obj({
    time: obj({ elapsed: int32(), end: Uint64NoVal, start: Uint64NoVal, suspended: int32(), system: cpuTime, limit: Uint32NoVal, total: cpuTime, user: cpuTime }),
    exit_code: ExitCode,
    nodes: obj({ count: int32(), range: str(), list: arr(str()) }),
    tasks: obj({ count: int32() }),
    kill_request_user: str(),
    state: arr(strEnum(JOB_STATES)),
    step: obj({ id: str(), name: str() }),
    tres: tresGroup,
  }),
);

export const DbJob = named(
  "job",
  obj({
    account: str(), comment: obj({ administrator: str(), job: str(), system: str() }), allocation_nodes: int32(),
    array: obj({ job_id: int32(), limits: obj({ max: obj({ running: obj({ tasks: int32() }) }) }), task_id: Uint32NoVal, task: str() }),
    association: obj({ account: str(), cluster: str(), partition: str(), user: str(), id: int32() }),
    cluster: str(), constraints: str(), derived_exit_code: ExitCode,
    time: obj({
      elapsed: int32(), eligible: int64(), end: int64(), planned: Uint64NoVal, start: int64(), submission: int64(),
      suspended: int32(), system: cpuTime, limit: Uint32NoVal, total: cpuTime, user: cpuTime,
    }),
    exit_code: ExitCode, flags: arr(str()), group: str(), het: obj({ job_id: int32(), job_offset: Uint32NoVal }),
    job_id: int32(), name: str(), nodes: str(), partition: str(), hold: bool(), priority: Uint32NoVal, qos: str(),
    required: obj({ CPUs: int32(), memory_per_cpu: Uint64NoVal, memory_per_node: Uint64NoVal }),
    kill_request_user: str(), restart_cnt: int32(), reservation: obj({ id: int32(), name: str() }),
    state: obj({ current: arr(strEnum(JOB_STATES)), reason: str() }), steps: arr(Step), submit_line: str(),
    tres: tresGroup, user: str(), wckey: obj({ wckey: str(), flags: arr(str()) }), working_directory: str(),
    stdout: str(), stderr: str(), stdin: str(),
  }),
);

export const DbJobsResp = named("openapi_slurmdbd_jobs_resp", obj({ jobs: arr(DbJob, 1_000_000), ...envelopeProps }, ["jobs"]));

export const Account = named("account", obj({ description: str(), name: str(), organization: str(), flags: arr(str()) }, ["description", "name", "organization"]));
export const AccountsResp = named("openapi_accounts_resp", obj({ accounts: arr(Account), ...envelopeProps }, ["accounts"]));

export const User = named("user", obj({ administrator_level: arr(strEnum(["Not Set", "None", "Operator", "Administrator"])), default: obj({ account: str(), wckey: str() }), flags: arr(str()), name: str() }, ["name"]));
export const UsersResp = named("openapi_users_resp", obj({ users: arr(User), ...envelopeProps }, ["users"]));

export const Qos = named("qos", obj({ description: str(), flags: arr(str()), id: int32(), name: str(), priority: Uint32NoVal, usage_factor: num() }));
export const QosResp = named("openapi_slurmdbd_qos_resp", obj({ qos: arr(Qos), ...envelopeProps }, ["qos"]));

export const Assoc = named("assoc", obj({ account: str(), cluster: str(), partition: str(), user: str(), id: int32(), is_default: bool(), flags: arr(str()) }, ["user"]));
export const AssocsResp = named("openapi_assocs_resp", obj({ associations: arr(Assoc), ...envelopeProps }, ["associations"]));

export const Cluster = named("cluster_rec", obj({ controller: obj({ host: str(), port: int32() }), flags: arr(str()), name: str(), nodes: str(), rpc_version: int32(), tres: TresList }));
export const ClustersResp = named("openapi_clusters_resp", obj({ clusters: arr(Cluster), ...envelopeProps }, ["clusters"]));

export const TresResp = named("openapi_tres_resp", obj({ TRES: TresList, ...envelopeProps }, ["TRES"]));

export const ConfigResp = named(
  "openapi_slurmdbd_config_resp",
  obj({ clusters: arr(Cluster), tres: TresList, accounts: arr(Account), users: arr(User), qos: arr(Qos), associations: arr(Assoc), ...envelopeProps }),
);

export const DbDiagResp = named(
  "openapi_slurmdbd_stats_resp",
  obj({ statistics: obj({ time_start: int64(), rollups: obj({}), RPCs: arr(obj({ rpc: str(), count: int32() })), users: arr(obj({ user: str(), count: int32() })) }), ...envelopeProps }, ["statistics"]),
);
