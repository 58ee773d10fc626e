/**
 * @module format/json-nodes
 * `sinfo --json`: every node in the openapi v0.0.38 shape of Slurm 22.05
 * (keys, order and JSON types of golden 012). As in 22.05, formats and
 * filters do not apply. NodeInfo.cpuLoad is a load average (0.68 → 68).
 */
import { convertNumUnit } from "./job-values.ts";
import { JsonDouble, type JsonValue, openapiMeta, writeOpenapiJson } from "./openapi-json.ts";
import type { Node } from "./sinfo-records.ts";
import { gresUsedShown } from "./gres-used.ts";


function tres(node: Node): string {
  const gpus = node.gpuCount > 0 ? `,gres/gpu=${node.gpuCount}` : "";
  return `cpu=${node.cpus},mem=${convertNumUnit(node.realMemoryMib, 2)},billing=${node.cpus}${gpus}`;
}

function tresUsed(node: Node): JsonValue {
  if (node.allocCpus === 0) return null;
  const gpus = node.gpuAlloc.length > 0 ? `,gres/gpu=${node.gpuAlloc.length}` : "";
  return `cpu=${node.allocCpus},mem=${convertNumUnit(node.allocMemoryMib, 2)}${gpus}`;
}

/** One node in the v0.0.38 shape. */
export function nodeToOpenapi(node: Node): Record<string, JsonValue> {
  return {
    architecture: node.arch,
    burstbuffer_network_address: "",
    boards: 1,
    boot_time: node.bootTime,
    comment: "",
    cores: node.coresPerSocket,
    cpu_binding: 0,
    cpu_load: Math.round(node.cpuLoad * 100),
    extra: "",
    free_memory: node.freeMemoryMib,
    cpus: node.cpus,
    last_busy: node.lastBusyTime,
    features: node.features,
    active_features: node.features,
    gres: node.gres,
    gres_drained: "N/A",
    gres_used: gresUsedShown(node),
    mcs_label: "",
    name: node.name,
    next_state_after_reboot: "invalid",
    address: node.addr,
    hostname: node.hostname,
    state: node.state.toLowerCase(),
    state_flags: [...node.stateFlags],
    next_state_after_reboot_flags: [],
    operating_system: node.os,
    owner: null,
    partitions: [...node.partitions],
    port: node.port,
    real_memory: node.realMemoryMib,
    reason: node.reason,
    reason_changed_at: node.reasonTime,
    reason_set_by_user: node.reasonUser === "" ? null : node.reasonUser,
    slurmd_start_time: node.registeredTime,
    sockets: node.sockets,
    threads: node.threadsPerCore,
    temporary_disk: node.tmpDiskMib,
    weight: node.weight,
    tres: tres(node),
    slurmd_version: node.version,
    alloc_memory: node.allocMemoryMib,
    alloc_cpus: node.allocCpus,
    idle_cpus: Math.max(0, node.cpus - node.allocCpus),
    tres_used: tresUsed(node),
    tres_weighted: new JsonDouble(node.allocCpus),
  };
}

/** The whole `sinfo --json` document (no trailing newline). */
export function sinfoJson(nodes: readonly Node[]): string {
  return writeOpenapiJson({ meta: openapiMeta(), errors: [], nodes: nodes.map(nodeToOpenapi) });
}
