/**
 * @module ctld/config-view
 * What `scontrol show config` lists: the settings in force, under Slurm's key
 * names and in Slurm's order (golden 022), for the settings Spur has. A key
 * Spur has no such setting for is left out rather than shown with a made-up
 * value; the fixed values below are what Spur does (e.g. no energy sampling:
 * AcctGatherNodeFreq 0, no gang scheduling: SchedulerTimeSlice at Slurm's
 * default), which tools such as Toil read.
 */
import type { ClusterState } from "../sched/model/types.ts";
import { SPUR_VERSION } from "../version.ts";
import { durationText } from "../sched/plan/sched-config.ts";
import { formatIsoTime } from "../compat/format-time.ts";
import { lookupUid } from "../net/users.ts";

/** Slurm's order of the keys Spur shows (22.05's `scontrol show config`). */
const SLURM_ORDER = [
  "AccountingStorageEnforce", "AccountingStorageTRES", "AcctGatherNodeFreq", "AuthType", "BOOT_TIME", "ClusterName",
  "DefMemPerCPU", "DependencyParameters", "FirstJobId", "GresTypes", "KillWait", "MaxArraySize", "MaxJobCount",
  "MaxNodeCount", "MinJobAge", "NEXT_JOB_ID", "PreemptMode", "PreemptType", "PriorityDecayHalfLife",
  "PriorityFavorSmall", "PriorityFlags", "PriorityMaxAge", "PriorityType", "PriorityWeightAge", "PriorityWeightAssoc",
  "PriorityWeightFairShare", "PriorityWeightJobSize", "PriorityWeightPartition", "PriorityWeightQOS",
  "PriorityWeightTRES", "SchedulerParameters", "SchedulerTimeSlice", "SchedulerType", "SelectType", "SlurmUser",
  "SlurmctldHost", "SlurmdTimeout", "SLURM_CONF", "SLURM_VERSION",
] as const;

type Key = (typeof SLURM_ORDER)[number];

export interface ConfigSite {
  controllerName: string;
  confPath: string;
  /** When this controller started (epoch seconds; BOOT_TIME). */
  startedAt?: number;
  /** uid the controller runs as (SlurmUser). */
  selfUid?: number;
}

export function configEntries(state: ClusterState, sc: ConfigSite): Record<string, string> {
  const c = state.config;
  const s = c.sched;
  const nodes = [...state.nodes.values()];
  const uid = sc.selfUid ?? 0;
  const values: Partial<Record<Key, string>> = {
    AccountingStorageEnforce: c.acctEnforce.length > 0 ? c.acctEnforce.join(",") : "none",
    AccountingStorageTRES: `cpu,mem,node,billing${nodes.some((n) => n.info.gpuCount > 0) ? ",gres/gpu" : ""}`,
    AcctGatherNodeFreq: "0 sec",
    AuthType: "auth/loopback",
    ...(sc.startedAt !== undefined ? { BOOT_TIME: formatIsoTime(sc.startedAt) } : {}),
    ClusterName: c.clusterName,
    DefMemPerCPU: c.defMemPerCpuMiB > 0 ? String(c.defMemPerCpuMiB) : "UNLIMITED",
    DependencyParameters: s.dependencyParametersText || "(null)",
    FirstJobId: String(c.firstJobId),
    GresTypes: nodes.some((n) => n.info.gpuCount > 0) ? "gpu" : "(null)",
    KillWait: `${c.killWaitSec} sec`,
    MaxArraySize: String(c.maxArraySize),
    MaxJobCount: String(c.maxJobCount),
    MaxNodeCount: String(nodes.length),
    MinJobAge: `${c.minJobAgeSec} sec`,
    NEXT_JOB_ID: String(state.nextJobId),
    PreemptMode: c.preempt.mode,
    PreemptType: c.preempt.type,
    PriorityDecayHalfLife: durationText(s.decayHalfLifeSec),
    PriorityFavorSmall: s.priorityFavorSmall ? "Yes" : "No",
    PriorityFlags: c.priorityFlags.map((f) => f.toUpperCase()).join(","),
    PriorityMaxAge: durationText(s.priorityMaxAgeSec),
    PriorityType: s.priorityType,
    PriorityWeightAge: String(s.weights.age),
    PriorityWeightAssoc: String(s.weights.assoc),
    PriorityWeightFairShare: String(s.weights.fairshare),
    PriorityWeightJobSize: String(s.weights.jobSize),
    PriorityWeightPartition: String(s.weights.partition),
    PriorityWeightQOS: String(s.weights.qos),
    PriorityWeightTRES: s.tresWeightsText || "(null)",
    SchedulerParameters: s.schedulerParametersText || "(null)",
    SchedulerTimeSlice: "30 sec",
    SchedulerType: s.schedulerType,
    SelectType: "select/cons_tres",
    SlurmUser: `${lookupUid(uid).name}(${uid})`,
    SlurmctldHost: sc.controllerName,
    SlurmdTimeout: `${c.slurmdTimeoutSec} sec`,
    SLURM_CONF: sc.confPath,
    SLURM_VERSION: SPUR_VERSION,
  };
  const out: Record<string, string> = {};
  for (const key of SLURM_ORDER) {
    const v = values[key];
    if (v !== undefined) out[key] = v;
  }
  return out;
}
