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

/** Each line's node names, beside its list: a line may hold thousands, and every add checks. */
const namesOf = new WeakMap<SinfoRecord, Set<string>>();

function addNode(rec: SinfoRecord, node: Node): void {
  let names = namesOf.get(rec);
  if (names === undefined) namesOf.set(rec, (names = new Set(rec.nodes.map((n) => n.name))));
  if (names.has(node.name)) return; // already on this line
  names.add(node.name);
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
 * The same choice as insertNode's walk (the first line, in order, whose partition matches and
 * that is empty or whose first node matches), found through keys instead of comparing with every
 * line: `sinfo -N` at 10k nodes made 20k lines and the walk took 5 s. A key is the values that
 * matchPart and matchNode compare (all primitives, compared as ===: a NaN never matches, so it
 * gets a key of its own). Grouped by host name or address, matchNode asks whether any node of
 * the line has the node's: a node joins a line only when the line has its name and address
 * already, so a line's names and addresses are its first node's, and they key like the rest.
 */
class LineIndex {
  /** Empty lines (made per partition before any node) by partition key, in order. */
  private readonly empty = new Map<string, SinfoRecord[]>();
  /** Lines with nodes by partition key, then node key, in order (two maps: no joined key string per node). */
  private readonly full = new Map<string, Map<string, SinfoRecord[]>>();
  private readonly position = new Map<SinfoRecord, number>();
  private nanCount = 0;
  private readonly partGetters: ((p: Partition) => unknown)[];
  private readonly nodeGetters: ((n: Node) => unknown)[];

  constructor(private readonly records: SinfoRecord[], private readonly o: GroupOptions) {
    this.partGetters = o.listReasons ? [] : PART_MATCH.filter(([k]) => o.match.has(k)).map(([, get]) => get);
    const byMembers: [MatchKey, (n: Node) => unknown][] = [["hostnames", (n) => n.hostname], ["nodeAddr", (n) => n.addr]];
    this.nodeGetters = [...byMembers, ...NODE_MATCH, ...(o.exact ? EXACT_MATCH : [])].filter(([k]) => o.match.has(k)).map(([, get]) => get);
    records.forEach((r) => this.note(r));
  }

  private key(values: unknown[]): string {
    let out = "";
    for (const v of values) out += typeof v === "number" && Number.isNaN(v) ? `NaN#${this.nanCount++},` : `${typeof v}:${typeof v === "string" ? JSON.stringify(v) : String(v)},`;
    return out;
  }

  /** Keys once per partition and per node: a node in three partitions is keyed once, not three times. */
  private readonly partKeys = new Map<Partition, string>();
  private readonly nodeKeys = new Map<Node, string>();

  private partKey(p: Partition): string {
    let k = this.partKeys.get(p);
    if (k === undefined) this.partKeys.set(p, (k = this.key(this.partGetters.map((get) => get(p)))));
    return k;
  }

  private nodeKey(n: Node): string {
    let k = this.nodeKeys.get(n);
    if (k === undefined) {
      const before = this.nanCount;
      k = this.key(this.nodeGetters.map((get) => get(n)));
      // a NaN matches nothing, not even the same node's other entry: such a key is never reused
      if (this.nanCount === before) this.nodeKeys.set(n, k);
    }
    return k;
  }

  private fullLines(p: Partition, n: Node): SinfoRecord[] | undefined {
    return this.full.get(this.partKey(p))?.get(this.nodeKey(n));
  }

  private note(r: SinfoRecord): void {
    if (!this.position.has(r)) this.position.set(r, this.position.size);
    const first = r.first;
    // -N: a line with nodes takes no other node (matchNode).
    if (first !== undefined && this.o.nodeLines) return;
    // Appended in line order: empty lines are made before any other, and a line is made only
    // when no empty line of its partition key is left, so none of them can later share its key.
    const partKey = this.partKey(r.part);
    let map: Map<string, SinfoRecord[]>;
    let key: string;
    if (first === undefined) [map, key] = [this.empty, partKey];
    else {
      let byNode = this.full.get(partKey);
      if (byNode === undefined) this.full.set(partKey, (byNode = new Map()));
      [map, key] = [byNode, this.nodeKey(first)];
    }
    const list = map.get(key);
    if (list === undefined) map.set(key, [r]);
    else list.push(r);
  }

  insert(part: Partition, partIndex: number, node: Node): void {
    const partKey = this.partKey(part);
    const emptyList = this.empty.get(partKey);
    const blank = emptyList?.[0];
    const same = this.o.nodeLines ? undefined : this.fullLines(part, node)?.[0];
    const pos = (r: SinfoRecord | undefined) => (r === undefined ? Infinity : (this.position.get(r) as number));
    const rec = pos(blank) <= pos(same) ? blank : same;
    if (rec === undefined) {
      const fresh = emptyRecord(part, partIndex);
      addNode(fresh, node);
      this.records.push(fresh);
      this.note(fresh);
      return;
    }
    addNode(rec, node);
    if (rec === blank) {
      emptyList?.shift();
      this.note(rec); // now a line with nodes, keyed by its first node
    }
  }
}

/**
 * The lines before sorting. `memberOf(part)` gives the partition's node
 * names; nodes are visited in node-table order, as Slurm walks node_inx.
 * `walk`: insertNode's comparison with every line (the definition; the seeded test's reference).
 */
export function buildRecords(
  nodes: readonly Node[],
  parts: readonly Partition[],
  memberOf: (part: Partition) => ReadonlySet<string>,
  o: GroupOptions,
  walk = false,
): SinfoRecord[] {
  const records: SinfoRecord[] = [];
  const chosen = (p: Partition): boolean => o.partitions === undefined || o.partitions.includes(p.name);
  if (!o.nodeLines && o.match.has("partition")) {
    parts.forEach((p, i) => chosen(p) && records.push(emptyRecord(p, i)));
  }
  const kept = o.keepNode === undefined ? nodes : nodes.filter(o.keepNode);
  const index = walk ? undefined : new LineIndex(records, o);
  parts.forEach((part, i) => {
    if (!chosen(part)) return;
    const members = memberOf(part);
    for (const node of kept) {
      if (!members.has(node.name)) continue;
      if (index === undefined) insertNode(records, part, i, node, o);
      else index.insert(part, i, node);
    }
  });
  return records;
}
