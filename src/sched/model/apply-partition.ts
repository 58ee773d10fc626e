/**
 * @module sched/model/apply-partition
 * The "partition" command: `scontrol create partition`, `update PartitionName=` and
 * `delete partition`, replicated like every change (each replica applies the same
 * command to the same state). Root and operators only (Slurm: "Invalid user id" for
 * anyone else); a name taken (create) or unknown (update, delete) is "Invalid partition
 * name specified", an unknown node "Invalid node name specified", and a partition that
 * still has pending or running jobs cannot be deleted ("Partition is in use"). Keys are
 * partitions.ts's, the values as scontrol normalised them; validate, then mutate. Pure.
 */
import { PARTITION_KEYS, buildPartition, refreshPartitionTotals, relinkNodePartitions, setPartitionKey, type NodeRecord, type PartitionKey, type PartitionRecord } from "./partitions.ts";
import type { SlurmErrorName } from "../../compat/slurm-errors.ts";

/** The "partition" command (commands.ts), structurally, so that this file stays outside the sched import cycle. */
export interface PartitionChange {
  action: "create" | "update" | "delete";
  name: string;
  fields: Readonly<Record<string, string>>;
  by: { uid: number; user: string };
}

/** What the partition rules read and change of the controller state (types.ts's ClusterState). */
export interface PartitionState {
  config: { operators: readonly string[] };
  partitions: PartitionRecord[];
  nodes: ReadonlyMap<string, NodeRecord>;
  jobs: ReadonlyMap<number, { info: { state: string; partition: string } }>;
}

/** A refusal (apply.ts turns it into the command's result); undefined = applied. */
export interface PartitionRefusal {
  code: SlurmErrorName;
  error: string;
}

const rejected = (code: SlurmErrorName, error: string): PartitionRefusal => ({ code, error });
const INVALID_NAME: PartitionRefusal = { code: "InvalidPartitionName", error: "Invalid partition name specified" };

/** Slurm's answer to a value the partition rules refuse. */
function faultAnswer(code: string): PartitionRefusal {
  if (code === "UnknownNode" || code === "BadNodes") return rejected("InvalidNodeName", "Invalid node name specified");
  if (code === "BadTime") return rejected("InvalidTimeLimit", "Invalid time limit specified");
  return rejected("InvalidArgument", "Invalid argument");
}

const isKey = (k: string): k is PartitionKey => (PARTITION_KEYS as readonly string[]).includes(k);

/** Is any job that has not ended queued or running in partition `name`? */
function inUse(state: PartitionState, name: string, finished: (state: string) => boolean): boolean {
  for (const job of state.jobs.values()) {
    if (!finished(job.info.state) && job.info.partition.split(",").includes(name)) return true;
  }
  return false;
}

/** This partition becomes the default one: the others stop being it (Slurm keeps one default). */
function takeDefault(state: PartitionState, p: PartitionRecord): void {
  if (!p.info.isDefault) return;
  for (const other of state.partitions) if (other !== p) other.info.isDefault = false;
}

/** `finished`: whether a job state is a terminal one (types.ts's TERMINAL_JOB_STATES). */
export function applyPartition(state: PartitionState, c: PartitionChange, finished: (state: string) => boolean): PartitionRefusal | undefined {
  if (c.by.uid !== 0 && !state.config.operators.includes(c.by.user)) return rejected("UserIdMissing", "Invalid user id");
  const name = c.name;
  const at = state.partitions.findIndex((p) => p.info.name === name);
  if (name === "" || name.toUpperCase() === "DEFAULT") return INVALID_NAME;
  const unknownKey = Object.keys(c.fields).find((k) => !isKey(k));
  if (unknownKey !== undefined) return rejected("InvalidArgument", `Update of this parameter is not supported: ${unknownKey}`);
  if (c.action === "delete") {
    if (at < 0) return INVALID_NAME;
    if (inUse(state, name, finished)) return rejected("PartitionInUse", "Partition is in use");
    state.partitions.splice(at, 1);
    relinkNodePartitions(state.partitions, state.nodes);
    return undefined;
  }
  if (c.action === "create") {
    if (at >= 0) return INVALID_NAME;
    const built = buildPartition(name, (k) => c.fields[k], state.nodes);
    if (!built.ok) return faultAnswer(built.error.code);
    state.partitions.push(built.value);
    takeDefault(state, built.value);
    relinkNodePartitions(state.partitions, state.nodes);
    return undefined;
  }
  if (at < 0) return INVALID_NAME;
  const current = state.partitions[at] as PartitionRecord;
  // validate on a copy, then swap it in: a refused value changes nothing
  const next: PartitionRecord = { nodeNames: [...current.nodeNames], info: { ...current.info } };
  for (const key of PARTITION_KEYS) {
    const v = c.fields[key];
    if (v === undefined) continue;
    const r = setPartitionKey(next, key, v, state.nodes);
    if (!r.ok) return faultAnswer(r.error.code);
  }
  refreshPartitionTotals(next, state.nodes);
  state.partitions[at] = next;
  takeDefault(state, next);
  relinkNodePartitions(state.partitions, state.nodes);
  return undefined;
}
