/**
 * @module ctld/config-view
 * What `scontrol show config` lists: the settings in force, under Slurm's key
 * names where Spur has the same setting.
 */
import type { ClusterState } from "../sched/model/types.ts";
import { SPUR_VERSION } from "../version.ts";

export function configEntries(state: ClusterState, sc: { controllerName: string; confPath: string }): Record<string, string> {
  const c = state.config;
  return {
    AuthType: "auth/loopback",
    ClusterName: c.clusterName,
    DefMemPerCPU: c.defMemPerCpuMiB > 0 ? String(c.defMemPerCpuMiB) : "UNLIMITED",
    FirstJobId: String(c.firstJobId),
    KillWait: `${c.killWaitSec} sec`,
    MaxArraySize: String(c.maxArraySize),
    MaxJobCount: String(c.maxJobCount),
    MinJobAge: `${c.minJobAgeSec} sec`,
    SchedulerType: "sched/builtin",
    SelectType: "select/cons_tres",
    SlurmctldHost: sc.controllerName,
    SlurmdTimeout: `${c.slurmdTimeoutSec} sec`,
    SLURM_CONF: sc.confPath,
    SLURM_VERSION: SPUR_VERSION,
  };
}
