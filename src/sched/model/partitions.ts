/**
 * @module sched/model/partitions
 * A partition from key=value settings: the same rules build the partitions of slurm.conf
 * (state.ts), of `scontrol create partition` and of `scontrol update PartitionName=`
 * (apply-partition.ts), so a partition made at run time is the one the file would make.
 * Keys are Slurm's (PartitionName= line keys, case as in slurm.conf). Pure. The record types
 * are structural (what types.ts's PartitionRecord and NodeRecord hold), so this file stays
 * outside the sched import cycle (docs/architecture.md).
 */
import { compressHostlist, expandHostlist } from "../../compat/hostlist.ts";
import { parseTimeLimit } from "../../compat/parse-time.ts";
import { err, ok, type Result } from "../../lib/result.ts";
import { tresText } from "./tres.ts";
import { gresTresText, parseGresItems } from "../../compat/gres-generic.ts";
import type { PartitionInfoState } from "./state-types.ts";

/** A partition as the controller keeps it (types.ts's PartitionRecord). */
export interface PartitionRecord {
  info: PartitionInfoState;
  /** Expanded member node names, in configuration order. */
  nodeNames: string[];
}

/** What these rules read of a node (types.ts's NodeRecord). */
export interface NodeRecord {
  info: { cpus: number; realMemoryMib: number; gpuCount: number; partitions: string[]; gresGeneric?: string | undefined; gresTracked?: string | undefined };
}

/** The settings a partition takes here, in the order they are applied. */
export const PARTITION_KEYS = [
  "Nodes", "Default", "State", "MaxTime", "DefaultTime", "MaxNodes", "MinNodes", "PriorityTier", "PriorityJobFactor",
  "OverSubscribe", "RootOnly", "AllowGroups", "AllowAccounts", "AllowQos", "Hidden", "GraceTime",
] as const;
export type PartitionKey = (typeof PARTITION_KEYS)[number];

const UNLIMITED = new Set(["INFINITE", "UNLIMITED"]);
const yes = (v: string): boolean => v.toUpperCase() === "YES";
const count = (v: string): number | undefined => (/^\d{1,9}$/.test(v.trim()) ? Number(v) : undefined);

/** A partition named `name` with Slurm's defaults and no nodes. */
export function emptyPartition(name: string): PartitionRecord {
  return {
    nodeNames: [],
    info: {
      name, nodes: "", isDefault: false, state: "UP", maxTimeMin: undefined, defaultTimeMin: undefined, maxNodes: undefined,
      minNodes: 0, priorityTier: 1, priorityJobFactor: 1, totalCpus: 0, totalNodes: 0, tres: "", oversubscribe: "NO",
      rootOnly: false, allowGroups: "ALL", allowAccounts: "ALL", allowQos: "ALL", hidden: false, graceTimeSec: 0,
      defMemPerCpuMib: undefined,
    },
  };
}

/** Why a setting could not be applied: which kind of value was wrong. */
export type PartitionFault = "BadNodes" | "UnknownNode" | "BadTime" | "BadNumber";

function limitOf(v: string): Result<number | undefined> {
  if (UNLIMITED.has(v.toUpperCase())) return ok(undefined);
  return parseTimeLimit(v);
}

function setNodes(p: PartitionRecord, v: string, nodes: ReadonlyMap<string, NodeRecord>): Result<void> {
  const expanded = v.toUpperCase() === "ALL" ? ok([...nodes.keys()]) : v === "" ? ok([]) : expandHostlist(v);
  if (!expanded.ok) return err("BadNodes", v);
  const unknown = expanded.value.find((n) => !nodes.has(n));
  if (unknown !== undefined) return err("UnknownNode", unknown);
  p.nodeNames = expanded.value;
  return ok(undefined);
}

/** Set one key on `p` (mutates); an error names the fault and the value. Totals are not recomputed here. */
export function setPartitionKey(p: PartitionRecord, key: PartitionKey, v: string, nodes: ReadonlyMap<string, NodeRecord>): Result<void> {
  const i = p.info;
  const num = (apply: (n: number) => void): Result<void> => {
    const n = count(v);
    if (n === undefined) return err("BadNumber", v);
    apply(n);
    return ok(undefined);
  };
  switch (key) {
    case "Nodes":
      return setNodes(p, v, nodes);
    case "MaxTime":
    case "DefaultTime": {
      const t = limitOf(v);
      if (!t.ok) return err("BadTime", v);
      if (key === "MaxTime") i.maxTimeMin = t.value;
      else i.defaultTimeMin = t.value;
      return ok(undefined);
    }
    case "MaxNodes":
      if (UNLIMITED.has(v.toUpperCase())) {
        i.maxNodes = undefined;
        return ok(undefined);
      }
      return num((n) => { i.maxNodes = n; });
    case "MinNodes":
      return num((n) => { i.minNodes = n; });
    case "PriorityTier":
      return num((n) => { i.priorityTier = n; });
    case "PriorityJobFactor":
      return num((n) => { i.priorityJobFactor = n; });
    case "GraceTime":
      return num((n) => { i.graceTimeSec = n; });
    case "Default":
      i.isDefault = yes(v);
      return ok(undefined);
    case "RootOnly":
      i.rootOnly = yes(v);
      return ok(undefined);
    case "Hidden":
      i.hidden = yes(v);
      return ok(undefined);
    case "State":
      i.state = v.toUpperCase();
      return ok(undefined);
    case "OverSubscribe":
      i.oversubscribe = v.toUpperCase();
      return ok(undefined);
    case "AllowGroups":
      i.allowGroups = v;
      return ok(undefined);
    case "AllowAccounts":
      i.allowAccounts = v;
      return ok(undefined);
    case "AllowQos":
      i.allowQos = v;
      return ok(undefined);
  }
}

/** Nodes=, TotalCPUs, TotalNodes and TRES from the member nodes as they are configured now. */
export function refreshPartitionTotals(p: PartitionRecord, nodes: ReadonlyMap<string, NodeRecord>): void {
  const members = p.nodeNames.map((n) => nodes.get(n)).filter((n) => n !== undefined);
  const cpus = members.reduce((s, n) => s + n.info.cpus, 0);
  const mem = members.reduce((s, n) => s + n.info.realMemoryMib, 0);
  const gpus = members.reduce((s, n) => s + n.info.gpuCount, 0);
  // counted GRES AccountingStorageTRES tracks (each node carries the tracked names) follow the GPUs: gres/nvme=4
  const tracked = [...new Set(members.flatMap((n) => (n.info.gresTracked ? n.info.gresTracked.split(",") : [])))];
  const generic = gresTresText(members.flatMap((n) => parseGresItems(n.info.gresGeneric ?? "")), tracked);
  Object.assign(p.info, { nodes: compressHostlist(p.nodeNames), totalCpus: cpus, totalNodes: members.length, tres: tresText(cpus, mem, members.length, gpus) + generic });
}

/** A whole partition from a key lookup (slurm.conf line or a create request). */
export function buildPartition(name: string, get: (key: PartitionKey) => string | undefined, nodes: ReadonlyMap<string, NodeRecord>): Result<PartitionRecord> {
  const p = emptyPartition(name);
  for (const key of PARTITION_KEYS) {
    const v = get(key);
    if (v === undefined) continue;
    const r = setPartitionKey(p, key, v, nodes);
    if (!r.ok) return r;
  }
  refreshPartitionTotals(p, nodes);
  return ok(p);
}

/** Every node's Partitions= list, in the order of `partitions` (after any partition change). */
export function relinkNodePartitions(partitions: readonly PartitionRecord[], nodes: ReadonlyMap<string, NodeRecord>): void {
  for (const n of nodes.values()) n.info.partitions = [];
  for (const p of partitions) for (const name of p.nodeNames) nodes.get(name)?.info.partitions.push(p.info.name);
}
