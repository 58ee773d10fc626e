/**
 * @module rest/serialize-cluster
 * Spur's node and partition records → slurmrestd's v0.0.4x `node` and
 * `partition_info`. States become arrays of Slurm's flag names; limits that
 * are absent in Spur ("UNLIMITED") become {infinite: true} number objects.
 */
import { gresTresText, parseGresItems } from "../../compat/gres-generic.ts";
import type { Plain } from "../../lib/plain.ts";
import type { NodeInfo, PartitionInfo } from "../gen/spur/v1/types_pb.ts";
import type { Infer } from "./schema.ts";
import { infinite, noValue, value } from "./schemas-common.ts";
import { NODE_STATES, PARTITION_STATES, Node, Partition } from "./schemas-cluster.ts";

export type NodeValue = Infer<typeof Node>;
export type PartitionValue = Infer<typeof Partition>;
type NodeState = (typeof NODE_STATES)[number];
const NODE_STATE_SET: ReadonlySet<string> = new Set(NODE_STATES);

export function nodeStateArray(n: Plain<NodeInfo>): NodeState[] {
  const out: NodeState[] = [];
  for (const s of [n.state.toUpperCase(), ...n.stateFlags.map((f) => f.toUpperCase().replace(/ /g, "_"))]) {
    if (NODE_STATE_SET.has(s) && !out.includes(s as NodeState)) out.push(s as NodeState);
  }
  return out.length > 0 ? out : ["UNKNOWN"];
}

const time = (t: number) => (t > 0 ? value(Math.floor(t)) : value(0));
const list = (text: string): string[] => (text === "" ? [] : text.split(","));

export function nodeValue(n: Plain<NodeInfo>, cluster: string): NodeValue {
  // tracked counted GRES (AccountingStorageTRES gres/nvme) follow the GPUs, as in scontrol's CfgTRES/AllocTRES
  const tracked = n.gresTracked ? n.gresTracked.split(",") : [];
  const genericUsed = parseGresItems(n.gresUsed).filter((g) => g.name !== "gpu");
  const tres = `cpu=${n.cpus},mem=${n.realMemoryMib}M,billing=${n.cpus}${n.gpuCount > 0 ? `,gres/gpu=${n.gpuCount}` : ""}${gresTresText(parseGresItems(n.gresGeneric ?? ""), tracked)}`;
  const used = n.allocCpus > 0 ? `cpu=${n.allocCpus},mem=${n.allocMemoryMib}M${n.gpuAlloc.length > 0 ? `,gres/gpu=${n.gpuAlloc.length}` : ""}${gresTresText(genericUsed, tracked)}` : "";
  return {
    architecture: n.arch, boards: 1, boot_time: time(n.bootTime), cluster_name: cluster, cores: n.coresPerSocket,
    specialized_cores: 0, cpu_binding: 0, cpu_load: Math.round(n.cpuLoad * 100), free_mem: value(n.freeMemoryMib),
    cpus: n.cpus, effective_cpus: n.cpus, specialized_cpus: "", extra: "", features: list(n.features),
    active_features: list(n.features), gpu_spec: "", gres: [n.gres, n.gresGeneric ?? ""].filter((g) => g !== "").join(","), gres_drained: "N/A", gres_used: n.gresUsed,
    instance_id: "", instance_type: "", last_busy: time(n.lastBusyTime), mcs_label: "", specialized_memory: 0,
    name: n.name, next_state_after_reboot: [], address: n.addr, hostname: n.hostname || n.name,
    state: nodeStateArray(n), operating_system: n.os, owner: "", partitions: [...n.partitions], port: n.port,
    real_memory: n.realMemoryMib, comment: "", reason: n.reason, reason_changed_at: time(n.reasonTime),
    reason_set_by_user: n.reasonUser, resume_after: noValue(), reservation: "", alloc_memory: n.allocMemoryMib,
    alloc_cpus: n.allocCpus, alloc_idle_cpus: n.cpus - n.allocCpus, tres_used: used, tres_weighted: n.allocCpus,
    slurmd_start_time: time(n.registeredTime), sockets: n.sockets, threads: n.threadsPerCore,
    temporary_disk: n.tmpDiskMib, weight: n.weight, tres, version: n.version,
  };
}

type PartitionState = (typeof PARTITION_STATES)[number];
const limit = (n: number | undefined) => (n === undefined ? infinite() : value(n));

export function partitionValue(p: Plain<PartitionInfo>, cluster: string): PartitionValue {
  const state = (PARTITION_STATES as readonly string[]).includes(p.state.toUpperCase()) ? (p.state.toUpperCase() as PartitionState) : "UNKNOWN";
  return {
    nodes: { allowed_allocation: "", configured: p.nodes, total: p.totalNodes },
    accounts: { allowed: p.allowAccounts, deny: "" },
    groups: { allowed: p.allowGroups },
    qos: { allowed: p.allowQos, deny: "", assigned: "" },
    alternate: "", tres: { billing_weights: "", configured: p.tres }, cluster,
    cpus: { task_binding: 0, total: p.totalCpus },
    defaults: {
      memory_per_cpu: p.defMemPerCpuMib ?? 0,
      partition_memory_per_cpu: p.defMemPerCpuMib === undefined ? noValue() : value(p.defMemPerCpuMib),
      partition_memory_per_node: noValue(),
      time: p.defaultTimeMin === undefined ? noValue() : value(p.defaultTimeMin), job: "",
    },
    grace_time: p.graceTimeSec,
    maximums: {
      cpus_per_node: infinite(), cpus_per_socket: infinite(), memory_per_cpu: 0, nodes: limit(p.maxNodes), shares: 1,
      oversubscribe: { jobs: 1, flags: [] }, time: limit(p.maxTimeMin), over_time_limit: noValue(),
    },
    minimums: { nodes: p.minNodes }, name: p.name, node_sets: "",
    priority: { job_factor: p.priorityJobFactor, tier: p.priorityTier },
    timeouts: { resume: noValue(), suspend: noValue() },
    partition: { state: [state] },
    suspend_time: noValue(),
  };
}
