/**
 * @module sched/model/apply-reconfigure
 * The "reconfigure" command (`scontrol reconfigure`): the leader read spur.conf (and
 * topology.conf) and put what they define into the command, so every replica applies the
 * same configuration from the log instead of reading its own copy of the files. What
 * changes at run time: the controller settings (scheduler and priority weights, limits,
 * operators, ...), the partitions (rebuilt from the file; ReconfigFlags=KeepPartState keeps
 * their states, KeepPartInfo all their settings and the partitions the file lacks),
 * licenses, topology, and the GRES, features and weight of existing nodes. What needs a
 * restart is refused with Slurm's texts and kept as it was: a changed node set ("You have
 * to restart slurmctld"), a node's CPUs, memory and disk (slurmctld's _restore_node_state
 * keeps them; "The node configuration changes ... require restart"), SchedulerType,
 * ClusterName. Root and
 * operators only ("Invalid user id"). Structural types keep this file outside the sched
 * import cycle (docs/architecture.md). Pure.
 */
import { parseTopologyConf, type NetworkTopology } from "../../compat/conf/topology-conf.ts";
import { refreshPartitionTotals, relinkNodePartitions, type PartitionRecord } from "./partitions.ts";

/**
 * The node fields a configuration defines (NodeName= lines). The counted GRES ("" = none) come
 * last: a command logged before they existed lacks them and leaves them as they are.
 */
export const NODE_CONFIG_FIELDS = [
  "cpus", "sockets", "coresPerSocket", "threadsPerCore", "realMemoryMib", "gres", "features", "weight", "tmpDiskMib", "gpuModel", "gpuCount",
  "gresGeneric", "gresTracked",
] as const;

type NodeConfig = { name: string } & Record<(typeof NODE_CONFIG_FIELDS)[number], string | number>;

/** What a reconfigure changes on an existing node; the rest (CPUs, memory, disk) needs a restart, as in Slurm. */
const NODE_RECONFIGURED_FIELDS = ["gres", "features", "weight", "gpuModel", "gpuCount", "gresGeneric", "gresTracked"] as const;

/** What the command carries (commands.ts), C being the controller settings (types.ts's ControllerConfig). */
export interface ReconfigureChange<C> {
  config: C;
  nodes: NodeConfig[];
  partitions: PartitionRecord[];
  licenses: [string, number][];
  /** topology.conf's text; absent = no file (a flat network). */
  topology?: string;
  /** spur.conf's global settings as written (lower-cased keys), for `scontrol show config`; absent in older logs. */
  globals?: [string, string][];
  by: { uid: number; user: string };
}

/** Slurm's answers (slurm_errno.c) to a plugin type changed by a reconfigure; the old one stays. */
const RESTART_TEXTS: Readonly<Record<string, string>> = {
  authtype: "AuthType change requires restart of all Slurm daemons and commands to take effect",
  selecttype: "SelectType change requires restart of the slurmctld daemon to take effect",
  switchtype: "SwitchType change requires restart of all Slurm daemons and jobs to take effect",
  credtype: "CredType change requires restart of all Slurm daemons to take effect",
  burstbuffertype: "BurstBufferType change requires restart of slurmctld daemon to take effect",
  jobcontainertype: "JobContainerType change requires restart of all Slurm daemons and commands to take effect",
};

interface Settings {
  clusterName: string;
  restartTypes?: Readonly<Record<string, string>>;
  reconfigFlags?: readonly string[];
  operators: readonly string[];
  sched: { schedulerType: string };
}

/** What is replicated for a replica restored from a snapshot (state.reconfigured). */
export interface Reconfigured<C> {
  config: C;
  topology?: string;
  globals?: [string, string][];
}

export interface ReconfigureState<C extends Settings> {
  config: C;
  nodes: ReadonlyMap<string, { info: { name: string; partitions: string[]; cpus: number; realMemoryMib: number; gpuCount: number }; adminFeatures?: string | undefined }>;
  partitions: PartitionRecord[];
  licenses?: Map<string, number>;
  topology?: NetworkTopology | undefined;
  reconfigured?: Reconfigured<C>;
}

/** Refused: nothing changed. Applied: `refused` lists what stayed as it was (Slurm's texts). */
export type ReconfigureOutcome = { denied: string } | { refused: string[] };

function nodeSetRefusal(current: readonly string[], wanted: readonly string[]): string | undefined {
  if (current.length !== wanted.length) {
    return `node count has changed before reconfiguration from ${current.length} to ${wanted.length}. You have to restart slurmctld.`;
  }
  const have = new Set(current);
  return wanted.every((n) => have.has(n)) ? undefined : "node names changed before reconfiguration. You have to restart slurmctld.";
}

const topologyOf = (text: string | undefined): NetworkTopology | undefined => {
  if (text === undefined) return undefined;
  const parsed = parseTopologyConf(text);
  return parsed.ok ? parsed.value : undefined;
};

export function applyReconfigure<C extends Settings>(state: ReconfigureState<C>, c: ReconfigureChange<C>): ReconfigureOutcome {
  if (c.by.uid !== 0 && !state.config.operators.includes(c.by.user)) return { denied: "Invalid user id" };
  const refused: string[] = [];
  const config = { ...c.config };
  if (config.sched.schedulerType !== state.config.sched.schedulerType) {
    refused.push("SchedulerType change requires restart of the slurmctld daemon to take effect");
    config.sched = { ...config.sched, schedulerType: state.config.sched.schedulerType };
  }
  const before = state.config.restartTypes ?? {};
  const after = config.restartTypes ?? {};
  for (const [key, text] of Object.entries(RESTART_TEXTS)) if ((before[key] ?? "") !== (after[key] ?? "")) refused.push(text);
  if (Object.keys(before).length > 0 || Object.keys(after).length > 0) config.restartTypes = { ...before };
  if (config.clusterName !== state.config.clusterName) {
    refused.push("ClusterName change requires restart of the slurmctld daemon to take effect");
    config.clusterName = state.config.clusterName;
  }
  const nodeRefusal = nodeSetRefusal([...state.nodes.keys()], c.nodes.map((n) => n.name));
  if (nodeRefusal !== undefined) refused.push(nodeRefusal);
  else {
    let cpusChanged = false;
    for (const n of c.nodes) {
      const node = state.nodes.get(n.name);
      if (node === undefined) continue;
      const info = node.info as unknown as Record<string, unknown>;
      // features set with scontrol update stay (as registration keeps them)
      for (const key of NODE_RECONFIGURED_FIELDS) if (n[key] !== undefined && (key !== "features" || node.adminFeatures === undefined)) info[key] = n[key];
      if (n.cpus !== node.info.cpus) cpusChanged = true;
    }
    if (cpusChanged) refused.push("The node configuration changes that were made require restart of the slurmctld daemon to take effect");
  }
  // Partitions come from the file; one naming a node that stays unknown (a refused node set) keeps only known ones.
  const partitions = keptPartitions(state.partitions, c.partitions, config.reconfigFlags ?? [])
    .map((p) => ({ nodeNames: p.nodeNames.filter((n) => state.nodes.has(n)), info: { ...p.info } }));
  for (const p of partitions) refreshPartitionTotals(p, state.nodes);
  state.partitions.splice(0, state.partitions.length, ...partitions);
  relinkNodePartitions(state.partitions, state.nodes);
  if (c.licenses.length > 0) state.licenses = new Map(c.licenses);
  else delete state.licenses;
  state.config = config;
  state.topology = topologyOf(c.topology);
  state.reconfigured = { config, ...(c.topology === undefined ? {} : { topology: c.topology }), ...(c.globals === undefined ? {} : { globals: c.globals }) };
  return { refused };
}

/**
 * The partitions after a reconfigure: the file's; with KeepPartState each keeps the state it had,
 * with KeepPartInfo every setting it had (scontrol update), and partitions the file lacks stay.
 */
function keptPartitions(current: readonly PartitionRecord[], fromFile: readonly PartitionRecord[], flags: readonly string[]): PartitionRecord[] {
  const keepInfo = flags.includes("keeppartinfo");
  const keepState = keepInfo || flags.includes("keeppartstate");
  const out = fromFile.map((p) => {
    const old = current.find((o) => o.info.name === p.info.name);
    if (old === undefined || !keepState) return p;
    return keepInfo ? { nodeNames: [...old.nodeNames], info: { ...old.info } } : { nodeNames: p.nodeNames, info: { ...p.info, state: old.info.state } };
  });
  if (keepInfo) for (const old of current) if (!out.some((p) => p.info.name === old.info.name)) out.push({ nodeNames: [...old.nodeNames], info: { ...old.info } });
  return out;
}

/** After a snapshot restore: the configuration the log last set (if any) replaces the one read from the file. */
export function restoreReconfigured<C extends Settings>(state: ReconfigureState<C>): void {
  if (state.reconfigured === undefined) return;
  state.config = state.reconfigured.config;
  state.topology = topologyOf(state.reconfigured.topology);
}
