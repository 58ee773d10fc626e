/**
 * @module format/sinfo-records
 * How sinfo turns nodes × partitions into lines: per partition (in config
 * order), each node joins the first line whose partition and printed
 * attributes match, else starts a new one (Slurm's _build_sinfo_data /
 * _match_node_data / _match_part_data). Counts and min/max ranges per line.
 */
import type { Plain } from "../../lib/plain.ts";
import type { NodeInfo, PartitionInfo } from "../../net/gen/spur/v1/types_pb.ts";
import { nodeStateLong } from "../node-states.ts";
import { gresWithSockets } from "./gres-sockets.ts";

export type Node = Plain<NodeInfo>;
export type Partition = Plain<PartitionInfo>;

/** Attributes a line groups on; set by the fields present in the format. */
export type MatchKey =
  | "partition" | "avail" | "groups" | "jobSize" | "defaultTime" | "maxTime" | "root"
  | "oversubscribe" | "preemptMode" | "priorityTier" | "priorityJobFactor" | "maxCpusPerNode"
  | "state" | "features" | "featuresAct" | "gres" | "gresUsed" | "reason" | "reasonTime"
  | "reasonUser" | "hostnames" | "nodeAddr" | "allocMem"
  | "cpus" | "sockets" | "cores" | "threads" | "sct" | "disk" | "memory" | "weight" | "cpuLoad"
  | "freeMem" | "port" | "version";

/** One printed line. `first` holds the attributes of the first node added. */
export interface SinfoRecord {
  part: Partition;
  partIndex: number;
  nodes: Node[];
  first?: Node;
  nodesAlloc: number;
  nodesIdle: number;
  nodesOther: number;
  cpusAlloc: number;
  cpusIdle: number;
  cpusOther: number;
  cpusTotal: number;
}

export interface GroupOptions {
  match: ReadonlySet<MatchKey>;
  /** -N: one line per node and partition. */
  nodeLines: boolean;
  /** -R: partitions do not split lines. */
  listReasons: boolean;
  /** -e: sizes (cpus, memory, ...) must be equal to share a line. */
  exact: boolean;
  /** Partitions selected with -p (undefined = all). */
  partitions?: readonly string[];
  /** Node filter (-n, -t, -d, -r); undefined = keep every node. */
  keepNode?: (node: Node) => boolean;
}

const PART_MATCH: readonly [MatchKey, (p: Partition) => unknown][] = [
  ["partition", (p) => p.name],
  ["avail", (p) => p.state],
  ["groups", (p) => p.allowGroups],
  ["jobSize", (p) => `${p.minNodes}-${p.maxNodes}`],
  ["defaultTime", (p) => p.defaultTimeMin],
  ["maxTime", (p) => p.maxTimeMin],
  ["root", (p) => p.rootOnly],
  ["oversubscribe", (p) => p.oversubscribe],
  ["priorityTier", (p) => p.priorityTier],
  ["priorityJobFactor", (p) => p.priorityJobFactor],
];

function matchPart(rec: SinfoRecord, part: Partition, o: GroupOptions): boolean {
  if (o.listReasons || rec.part === part) return true;
  return PART_MATCH.every(([key, get]) => !o.match.has(key) || get(rec.part) === get(part));
}

/** Compared whenever the line already has nodes. */
const NODE_MATCH: readonly [MatchKey, (n: Node) => unknown][] = [
  ["features", (n) => n.features],
  ["featuresAct", (n) => n.features],
  ["gres", (n) => gresWithSockets(n)],
  ["gresUsed", (n) => n.gresUsed],
  ["reason", (n) => n.reason],
  ["reasonTime", (n) => n.reasonTime],
  ["reasonUser", (n) => n.reasonUser],
  ["state", (n) => nodeStateLong(n)],
  ["allocMem", (n) => n.allocMemoryMib],
];

/** Compared only with -e (exact sizes). */
const EXACT_MATCH: readonly [MatchKey, (n: Node) => unknown][] = [
  ["cpus", (n) => n.cpus],
  ["sockets", (n) => n.sockets],
  ["cores", (n) => n.coresPerSocket],
  ["threads", (n) => n.threadsPerCore],
  ["sct", (n) => `${n.sockets}:${n.coresPerSocket}:${n.threadsPerCore}`],
  ["disk", (n) => n.tmpDiskMib],
  ["memory", (n) => n.realMemoryMib],
  ["weight", (n) => n.weight],
  ["cpuLoad", (n) => n.cpuLoad],
  ["freeMem", (n) => n.freeMemoryMib],
  ["port", (n) => n.port],
  ["version", (n) => n.version],
];

function matchNode(rec: SinfoRecord, node: Node, o: GroupOptions): boolean {
  const first = rec.first;
  if (o.nodeLines || first === undefined) return false;
  if (o.match.has("hostnames") && !rec.nodes.some((n) => n.hostname === node.hostname)) return false;
  if (o.match.has("nodeAddr") && !rec.nodes.some((n) => n.addr === node.addr)) return false;
  if (!NODE_MATCH.every(([key, get]) => !o.match.has(key) || get(first) === get(node))) return false;
  if (!o.exact) return true;
  return EXACT_MATCH.every(([key, get]) => !o.match.has(key) || get(first) === get(node));
}

const upper = (s: string): string => s.toUpperCase();
const hasFlag = (n: Node, flag: string): boolean => n.stateFlags.some((f) => upper(f) === flag);
export const isDrain = (n: Node): boolean => hasFlag(n, "DRAIN");
const isBusy = (n: Node): boolean => ["ALLOCATED", "MIXED"].includes(upper(n.state));

function addNode(rec: SinfoRecord, node: Node): void {
  if (rec.nodes.some((n) => n.name === node.name)) return; // already on this line
  rec.first ??= node;
  rec.nodes.push(node);
  const down = isDrain(node) || upper(node.state) === "DOWN";
  if (isBusy(node) || hasFlag(node, "COMPLETING")) rec.nodesAlloc++;
  else if (down) rec.nodesOther++;
  else rec.nodesIdle++;
  const alloc = Math.min(node.allocCpus, node.cpus);
  rec.cpusAlloc += alloc;
  rec.cpusTotal += node.cpus;
  if (down) rec.cpusOther += node.cpus - alloc;
  else rec.cpusIdle += node.cpus - alloc;
}

const emptyRecord = (part: Partition, partIndex: number): SinfoRecord => ({
  part, partIndex, nodes: [], nodesAlloc: 0, nodesIdle: 0, nodesOther: 0,
  cpusAlloc: 0, cpusIdle: 0, cpusOther: 0, cpusTotal: 0,
});

function insertNode(records: SinfoRecord[], part: Partition, partIndex: number, node: Node, o: GroupOptions): void {
  const rec = records.find((r) => matchPart(r, part, o) && (r.nodes.length === 0 || matchNode(r, node, o)));
  if (rec !== undefined) {
    addNode(rec, node);
    return;
  }
  const fresh = emptyRecord(part, partIndex);
  addNode(fresh, node);
  records.push(fresh);
}

/**
 * The lines before sorting. `memberOf(part)` gives the partition's node
 * names; nodes are visited in node-table order, as Slurm walks node_inx.
 */
export function buildRecords(
  nodes: readonly Node[],
  parts: readonly Partition[],
  memberOf: (part: Partition) => ReadonlySet<string>,
  o: GroupOptions,
): SinfoRecord[] {
  const records: SinfoRecord[] = [];
  const chosen = (p: Partition): boolean => o.partitions === undefined || o.partitions.includes(p.name);
  if (!o.nodeLines && o.match.has("partition")) {
    parts.forEach((p, i) => chosen(p) && records.push(emptyRecord(p, i)));
  }
  const kept = o.keepNode === undefined ? nodes : nodes.filter(o.keepNode);
  parts.forEach((part, index) => {
    if (!chosen(part)) return;
    const members = memberOf(part);
    for (const node of kept) if (members.has(node.name)) insertNode(records, part, index, node, o);
  });
  return records;
}
