/**
 * @module ctld/config-view
 * What `scontrol show config` lists: the settings in force, under Slurm's key
 * names where Spur has the same setting.
 */
import type { ClusterState } from "../sched/model/types.ts";
import { SPUR_VERSION } from "../version.ts";
import { durationText } from "../sched/plan/sched-config.ts";

export function configEntries(state: ClusterState, sc: { controllerName: string; confPath: string }): Record<string, string> {
  const c = state.config;
  const s = c.sched;
  return {
    PriorityDecayHalfLife: durationText(s.decayHalfLifeSec),
    PriorityFavorSmall: s.priorityFavorSmall ? "Yes" : "No",
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
    AuthType: "auth/loopback",
    ClusterName: c.clusterName,
    DefMemPerCPU: c.defMemPerCpuMiB > 0 ? String(c.defMemPerCpuMiB) : "UNLIMITED",
    FirstJobId: String(c.firstJobId),
    KillWait: `${c.killWaitSec} sec`,
    MaxArraySize: String(c.maxArraySize),
    MaxJobCount: String(c.maxJobCount),
    MinJobAge: `${c.minJobAgeSec} sec`,
    SchedulerType: s.schedulerType,
    SelectType: "select/cons_tres",
    SlurmctldHost: sc.controllerName,
    SlurmdTimeout: `${c.slurmdTimeoutSec} sec`,
    SLURM_CONF: sc.confPath,
    SLURM_VERSION: SPUR_VERSION,
  };
}
