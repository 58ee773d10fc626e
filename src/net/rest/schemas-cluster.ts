/**
 * @module rest/schemas-cluster
 * Node, partition, ping, diag, licenses, reservations and shares shapes of
 * slurmrestd's data_parser v0.0.4x (the /slurm/ side other than jobs).
 */
import { arr, bool, inVersions, int32, int64, named, num, obj, str, strEnum } from "./schema.ts";
import { Uint32NoVal, Uint64NoVal, Uint16NoVal, envelopeProps } from "./schemas-common.ts";

export const NODE_STATES = [
  "INVALID", "UNKNOWN", "DOWN", "IDLE", "ALLOCATED", "ERROR", "MIXED", "FUTURE", "RESERVED", "UNDRAIN", "CLOUD",
  "RESUME", "DRAIN", "COMPLETING", "NOT_RESPONDING", "POWERED_DOWN", "FAIL", "POWERING_UP", "MAINTENANCE",
  "REBOOT_REQUESTED", "REBOOT_CANCELED", "POWERING_DOWN", "DYNAMIC_FUTURE", "REBOOT_ISSUED", "PLANNED", "INVALID_REG",
  "POWER_DOWN", "POWER_UP", "POWER_DRAIN", "DYNAMIC_NORM", "BLOCKED",
] as const;

export const Node = named(
  "node",
  obj({
    architecture: str(), boards: int32(), boot_time: Uint64NoVal, cluster_name: str(), cores: int32(),
    specialized_cores: int32(), cpu_binding: int32(), cpu_load: int32(), free_mem: Uint64NoVal, cpus: int32(),
    effective_cpus: int32(), specialized_cpus: str(), extra: str(), features: arr(str()), active_features: arr(str()),
    gpu_spec: str(), gres: str(), gres_drained: str(), gres_used: str(), instance_id: str(), instance_type: str(),
    last_busy: Uint64NoVal, mcs_label: str(), specialized_memory: int64(), name: str(),
    next_state_after_reboot: arr(strEnum(NODE_STATES)), address: str(), hostname: str(), state: arr(strEnum(NODE_STATES)),
    operating_system: str(), owner: str(), partitions: arr(str()), port: int32(), real_memory: int64(), comment: str(),
    reason: str(), reason_changed_at: Uint64NoVal, reason_set_by_user: str(), resume_after: Uint64NoVal,
    reservation: str(), alloc_memory: int64(), alloc_cpus: int32(), alloc_idle_cpus: int32(), tres_used: str(),
    tres_weighted: num(), slurmd_start_time: Uint64NoVal, sockets: int32(), threads: int32(), temporary_disk: int32(),
    weight: int32(), tres: str(), version: str(),
  }),
);

export const NodesResp = named("openapi_nodes_resp", obj({ nodes: arr(Node, 1_000_000), last_update: Uint64NoVal, ...envelopeProps }, ["nodes", "last_update"]));

export const UpdateNodeMsg = named(
  "update_node_msg",
  obj({
    comment: str(4096), extra: str(4096), features: arr(str(256), 256), gres: str(1024), reason: str(4096),
    reason_uid: str(64), state: arr(strEnum(NODE_STATES), 8), weight: Uint32NoVal, name: arr(str(256), 4096),
  }),
);

export const PARTITION_STATES = ["INACTIVE", "UNKNOWN", "UP", "DOWN", "DRAIN"] as const;

export const Partition = named(
  "partition_info",
  obj({
    nodes: obj({ allowed_allocation: str(), configured: str(), total: int32() }),
    accounts: obj({ allowed: str(), deny: str() }),
    groups: obj({ allowed: str() }),
    qos: obj({ allowed: str(), deny: str(), assigned: str() }),
    alternate: str(), tres: obj({ billing_weights: str(), configured: str() }), cluster: str(),
    cpus: obj({ task_binding: int32(), total: int32() }),
    defaults: obj({ memory_per_cpu: int64(), partition_memory_per_cpu: Uint64NoVal, partition_memory_per_node: Uint64NoVal, time: Uint32NoVal, job: str() }),
    grace_time: int32(),
    maximums: obj({
      cpus_per_node: Uint32NoVal, cpus_per_socket: Uint32NoVal, memory_per_cpu: int64(), nodes: Uint32NoVal,
      shares: int32(), oversubscribe: obj({ jobs: int32(), flags: arr(str()) }), time: Uint32NoVal, over_time_limit: Uint16NoVal,
    }),
    minimums: obj({ nodes: int32() }),
    name: str(), node_sets: str(),
    priority: obj({ job_factor: int32(), tier: int32() }),
    timeouts: obj({ resume: Uint16NoVal, suspend: Uint16NoVal }),
    partition: obj({ state: arr(strEnum(PARTITION_STATES)) }),
    suspend_time: Uint32NoVal,
  }),
);

export const PartitionsResp = named("openapi_partition_resp", obj({ partitions: arr(Partition), last_update: Uint64NoVal, ...envelopeProps }, ["partitions", "last_update"]));

export const PingResp = named(
  "openapi_ping_array_resp",
  obj({
    // v0.0.45's controller_ping has `status` and no `pinged`/`mode` (checked against its spec); older ones the reverse.
    pings: arr(named("controller_ping", obj({
      hostname: str(), pinged: inVersions(str(), 42, 44), responding: bool(), latency: int64(), mode: inVersions(str(), 42, 44),
      primary: bool(), status: inVersions(str(), 45),
    }, ["responding", "primary"]))),
    ...envelopeProps,
  }, ["pings"]),
);

export const DiagResp = named(
  "openapi_diag_resp",
  obj({
    statistics: obj({
      parts_packed: int32(), req_time: Uint64NoVal, req_time_start: Uint64NoVal, server_thread_count: int32(),
      agent_queue_size: int32(), agent_count: int32(), agent_thread_count: int32(), dbd_agent_queue_size: int32(),
      jobs_submitted: int32(), jobs_started: int32(), jobs_completed: int32(), jobs_canceled: int32(), jobs_failed: int32(),
      jobs_pending: int32(), jobs_running: int32(), job_states_ts: Uint64NoVal, schedule_cycle_last: int32(),
      schedule_cycle_total: int32(), bf_active: bool(),
    }),
    ...envelopeProps,
  }, ["statistics"]),
);

export const LicensesResp = named(
  "openapi_licenses_resp",
  obj({
    licenses: arr(obj({ LicenseName: str(), Total: int32(), Used: int32(), Free: int32(), Remote: bool(), Reserved: int32(), LastConsumed: int32(), LastDeficit: int32(), LastUpdate: int64() })),
    last_update: Uint64NoVal, ...envelopeProps,
  }, ["licenses", "last_update"]),
);

export const ReservationsResp = named(
  "openapi_reservation_resp",
  obj({
    reservations: arr(obj({ name: str(), node_list: str(), node_count: int32(), partition: str(), users: str(), accounts: str(), start_time: Uint64NoVal, end_time: Uint64NoVal, flags: arr(str()) })),
    last_update: Uint64NoVal, ...envelopeProps,
  }, ["reservations", "last_update"]),
);

export const SharesResp = named(
  "openapi_shares_resp",
  obj({
    shares: obj({
      shares: arr(obj({ id: int32(), cluster: str(), name: str(), parent: str(), partition: str(), shares: Uint32NoVal, effective_usage: num(), usage: int64(), fairshare: obj({ factor: num(), level: num() }), type: arr(strEnum(["USER", "ASSOCIATION"])) })),
      total_shares: int64(),
    }),
    ...envelopeProps,
  }, ["shares"]),
);
