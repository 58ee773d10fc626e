/**
 * @module sched/model/state-node
 * A node and a partition as the replicated state keeps them (NodeRecord.info,
 * PartitionRecord.info, the registerNode command's payload). Hand-written, not the generated
 * wire types: ctld/wire-map checks field by field that state and wire still agree and is
 * where a difference gets its conversion. Changing a field here changes the snapshot and the
 * meaning of logged commands: bump STATE_TYPES_VERSION (state-types.ts) with it.
 */

/** A node as spurd registered it and the controller keeps it (allocation counters included). */
export interface NodeInfoState {
  name: string;
  addr: string;
  port: number;
  hostname: string;
  /** base: IDLE MIXED ALLOCATED DOWN UNKNOWN FUTURE */
  state: string;
  /** DRAIN COMPLETING NOT_RESPONDING RESERVED ... */
  stateFlags: string[];
  reason: string;
  reasonUser: string;
  reasonTime: number;
  cpus: number;
  allocCpus: number;
  sockets: number;
  coresPerSocket: number;
  threadsPerCore: number;
  realMemoryMib: number;
  allocMemoryMib: number;
  freeMemoryMib: number;
  /** gpu:mi300x:8 */
  gres: string;
  /** gpu:mi300x:2(IDX:0-1) */
  gresUsed: string;
  features: string;
  partitions: string[];
  bootTime: number;
  lastBusyTime: number;
  registeredTime: number;
  lastHeartbeat: number;
  weight: number;
  tmpDiskMib: number;
  arch: string;
  os: string;
  version: string;
  cpuLoad: number;
  gpuModel: string;
  gpuCount: number;
  gpuAlloc: number[];
  gpuTopology: string;
  /** how spurd contains jobs: cgroup/v1, cgroup/v2, or none (why) */
  cgroup?: string;
  /** configured GRES other than GPUs (slurm.conf Gres=), "nvme:2,bandwidth:lustre:4G"; absent = none */
  gresGeneric?: string;
  /** the generic GRES counted as TRES (AccountingStorageTRES gres/NAME[:TYPE]), "nvme,bandwidth:lustre"; absent = none */
  gresTracked?: string;
  /** each GPU's local CPU ids, ';' between GPUs ("0-15;16-31"; gres.conf Cores= or discovery); absent = unknown */
  gpuCpus?: string;
  /** when the controller first heard from the node (sreport counts its time from then); absent = never */
  firstRegisteredTime?: number;
}

/** A partition as slurm.conf and scontrol define it. */
export interface PartitionInfoState {
  name: string;
  /** hostlist */
  nodes: string;
  isDefault: boolean;
  /** UP DOWN DRAIN INACTIVE */
  state: string;
  /** absent = UNLIMITED */
  maxTimeMin?: number;
  /** absent = NONE */
  defaultTimeMin?: number;
  /** absent = UNLIMITED */
  maxNodes?: number;
  minNodes: number;
  priorityTier: number;
  priorityJobFactor: number;
  totalCpus: number;
  totalNodes: number;
  tres: string;
  oversubscribe: string;
  rootOnly: boolean;
  allowGroups: string;
  allowAccounts: string;
  allowQos: string;
  hidden: boolean;
  graceTimeSec: number;
  defMemPerCpuMib?: number;
}
