/**
 * @module ctld/config-view
 * What `scontrol show config` lists: every key of Slurm's (golden 022's order,
 * ctld/config-keys.ts), the settings in force computed here, spur.conf's text for
 * keys the site set, and otherwise the value that says what Spur does (Slurm's
 * default where Spur behaves so, "none"/"(null)" where it has no such thing); the fixed values below are what Spur does (e.g. no energy sampling:
 * AcctGatherNodeFreq 0, no gang scheduling: SchedulerTimeSlice at Slurm's
 * default), which tools such as Toil read.
 */
import { trackedGresNames } from "../compat/gres-generic.ts";
import type { ClusterState } from "../sched/model/types.ts";
import { SLURM_RELEASE_TEXT } from "../compat/slurm-release.ts";
import { CONFIG_KEYS } from "./config-keys.ts";
import { durationText } from "../sched/plan/sched-config.ts";
import { formatIsoTime } from "../compat/format-time.ts";
import { lookupUid } from "../net/users.ts";

type Key =
  | "PowerPlugin" | "AccountingStorageEnforce" | "AccountingStorageTRES" | "AcctGatherNodeFreq" | "AuthType" | "BOOT_TIME" | "ClusterName"
  | "DefMemPerCPU" | "DependencyParameters" | "EnforcePartLimits" | "FirstJobId" | "GresTypes" | "KillWait" | "MaxArraySize"
  | "MaxJobCount" | "MaxNodeCount" | "MinJobAge" | "NEXT_JOB_ID" | "PreemptMode" | "PreemptType" | "PriorityDecayHalfLife" | "ReconfigFlags"
  | "PriorityFavorSmall" | "PriorityFlags" | "PriorityMaxAge" | "PriorityType" | "PriorityWeightAge" | "PriorityWeightAssoc"
  | "PriorityWeightFairShare" | "PriorityWeightJobSize" | "PriorityWeightPartition" | "PriorityWeightQOS"
  | "PriorityWeightTRES" | "SchedulerParameters" | "SchedulerTimeSlice" | "SchedulerType" | "SelectType" | "SlurmUser"
  | "SlurmctldHost[0]" | "SlurmctldLogFile" | "SlurmctldPort" | "SlurmdTimeout" | "SLURM_CONF" | "SLURM_VERSION";

export interface ConfigSite {
  controllerName: string;
  confPath: string;
  /** When this controller started (epoch seconds; BOOT_TIME). */
  startedAt?: number;
  /** uid the controller runs as (SlurmUser). */
  selfUid?: number;
  /** The controller's RPC port (SlurmctldPort) and address (SlurmctldHost[0] "name(addr)"). */
  port?: number;
  address?: string;
  /** Where its log goes (SlurmctldLogFile), when it is a file. */
  logFile?: string;
  /** spur.conf's own settings, keys lower-cased: a key the site set shows its text. */
  globals?: ReadonlyMap<string, string>;
}

const RECONFIG_FLAG_NAMES: Readonly<Record<string, string>> = { keeppartinfo: "KeepPartInfo", keeppartstate: "KeepPartState", keeppowersavesettings: "KeepPowerSaveSettings" };

export function configEntries(state: ClusterState, sc: ConfigSite): Record<string, string> {
  const c = state.config;
  const s = c.sched;
  const nodes = [...state.nodes.values()];
  const uid = sc.selfUid ?? 0;
  const values: Partial<Record<Key, string>> = {
    AccountingStorageEnforce: c.acctEnforce.length > 0 ? c.acctEnforce.join(",") : "none",
    AccountingStorageTRES: `cpu,mem,node,billing${nodes.some((n) => n.info.gpuCount > 0) ? ",gres/gpu" : ""}${trackedGresNames(c.accountingTres).map((t) => `,gres/${t}`).join("")}`,
    AcctGatherNodeFreq: "0 sec",
    ...(sc.startedAt !== undefined ? { BOOT_TIME: formatIsoTime(sc.startedAt) } : {}),
    ClusterName: c.clusterName,
    EnforcePartLimits: c.enforcePartLimits ?? "NO",
    DefMemPerCPU: c.defMemPerCpuMiB > 0 ? String(c.defMemPerCpuMiB) : "UNLIMITED",
    DependencyParameters: s.dependencyParametersText || "(null)",
    FirstJobId: String(c.firstJobId),
    GresTypes: gresTypesText(nodes.some((n) => n.info.gpuCount > 0), c.gresTypes ?? []),
    KillWait: `${c.killWaitSec} sec`,
    MaxArraySize: String(c.maxArraySize),
    MaxJobCount: String(c.maxJobCount),
    MaxNodeCount: String(nodes.length),
    MinJobAge: `${c.minJobAgeSec} sec`,
    NEXT_JOB_ID: String(state.nextJobId),
    PreemptMode: c.preempt.mode,
    ...(c.reconfigFlags === undefined ? {} : { ReconfigFlags: c.reconfigFlags.map((f) => RECONFIG_FLAG_NAMES[f] ?? f).join(",") || "(null)" }),
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
    PowerPlugin: "",
    SchedulerType: s.schedulerType,
    SelectType: "select/cons_tres",
    SlurmUser: `${lookupUid(uid).name}(${uid})`,
    "SlurmctldHost[0]": sc.address === undefined ? sc.controllerName : `${sc.controllerName}(${sc.address})`,
    ...(sc.logFile === undefined ? {} : { SlurmctldLogFile: sc.logFile }),
    ...(sc.port === undefined ? {} : { SlurmctldPort: String(sc.port) }),
    SlurmdTimeout: `${c.slurmdTimeoutSec} sec`,
    SLURM_CONF: sc.confPath,
    // The Slurm release Spur follows, as `-V` prints it: tools read it to pick options (Spur's own: `spur version`).
    SLURM_VERSION: SLURM_RELEASE_TEXT,
  };
  const out: Record<string, string> = {};
  // after `scontrol reconfigure`, spur.conf's settings as that reconfigure read them (replicated), not as at start
  const replicated = state.reconfigured?.globals;
  const globals: ReadonlyMap<string, string> | undefined = replicated === undefined ? sc.globals : new Map(replicated);
  for (const [key, spurDefault] of CONFIG_KEYS) {
    // A computed value may be empty (PriorityFlags, PowerPlugin print "KEY = " as in Slurm); a key with
    // no computed value and no default (SlurmctldPort of a test without one) is left out.
    const computed = values[key as Key];
    const v = computed ?? globals?.get(key.toLowerCase()) ?? spurDefault;
    if (v !== "" || computed !== undefined) out[key] = v;
  }
  return out;
}

/** GresTypes as configured, with gpu first when any node has GPUs (Spur knows GPUs without it); "(null)" when none. */
function gresTypesText(gpus: boolean, configured: readonly string[]): string {
  const names = [...new Set([...(gpus ? ["gpu"] : []), ...configured])];
  return names.length > 0 ? names.join(",") : "(null)";
}
