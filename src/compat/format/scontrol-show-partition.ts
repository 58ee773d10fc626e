/**
 * @module format/scontrol-show-partition
 * `scontrol show partition` records in Slurm 22.05's layout (goldens 015,
 * 016). Limits Spur does not model (QoS, preemption, per-node memory caps)
 * print the values Slurm shows when they are unset.
 */
import { formatTimeLimitScontrol } from "../format-time.ts";
import type { Plain } from "../../lib/plain.ts";
import type { PartitionInfo } from "../../net/gen/spur/v1/types_pb.ts";
import { formatRecord, yesNo } from "./scontrol-record.ts";

export type Partition = Plain<PartitionInfo>;

const orAll = (text: string): string => (text === "" ? "ALL" : text);

/** One `scontrol show partition` record. */
export function formatPartitionRecord(p: Partition, oneLiner: boolean): string {
  const defaultTime = p.defaultTimeMin === undefined ? "NONE" : formatTimeLimitScontrol(p.defaultTimeMin);
  const maxNodes = p.maxNodes === undefined ? "UNLIMITED" : String(p.maxNodes);
  const defMem = p.defMemPerCpuMib === undefined ? "DefMemPerNode=UNLIMITED" : `DefMemPerCPU=${p.defMemPerCpuMib}`;
  const lines = [
    `PartitionName=${p.name}`,
    `AllowGroups=${orAll(p.allowGroups)} AllowAccounts=${orAll(p.allowAccounts)} AllowQos=${orAll(p.allowQos)}`,
    `AllocNodes=ALL Default=${yesNo(p.isDefault)} QoS=N/A`,
    `DefaultTime=${defaultTime} DisableRootJobs=NO ExclusiveUser=NO GraceTime=${p.graceTimeSec} Hidden=${yesNo(p.hidden)}`,
    `MaxNodes=${maxNodes} MaxTime=${formatTimeLimitScontrol(p.maxTimeMin)} MinNodes=${p.minNodes} LLN=NO MaxCPUsPerNode=UNLIMITED`,
    `Nodes=${p.nodes}`,
    `PriorityJobFactor=${p.priorityJobFactor} PriorityTier=${p.priorityTier} RootOnly=${yesNo(p.rootOnly)} ReqResv=NO OverSubscribe=${p.oversubscribe || "NO"}`,
    "OverTimeLimit=NONE PreemptMode=OFF",
    `State=${p.state || "UP"} TotalCPUs=${p.totalCpus} TotalNodes=${p.totalNodes} SelectTypeParameters=NONE`,
    "JobDefaults=(null)",
    `${defMem} MaxMemPerNode=UNLIMITED`,
  ];
  if (p.tres !== "") lines.push(`TRES=${p.tres}`);
  return formatRecord(lines, oneLiner, "plain");
}
