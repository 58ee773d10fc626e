/**
 * @module format/sinfo-fields
 * The sinfo column table: `-o` letter, `-O` name, header, value and the
 * attribute a line must share to merge (facts: slurm-surface/sinfo-format.tsv).
 * Ranges over a line print "4" when equal and "4+" (the minimum) otherwise.
 */
import { assert } from "../../lib/assert.ts";
import { formatIsoTime, formatTimeLimitSinfo } from "../format-time.ts";
import { hostlistUniq } from "../hostlist.ts";
import { nodeStateCompact, nodeStateLong, nodeStateSinfoComplete } from "../node-states.ts";
import type { ColumnDef } from "./format-spec.ts";
import { gresWithSockets } from "./gres-sockets.ts";
import { convertNumUnit } from "./job-values.ts";
import type { MatchKey, Node, SinfoRecord } from "./sinfo-records.ts";
import { gresUsedShown } from "./gres-used.ts";

interface SinfoField {
  key: string;
  letter?: string;
  aliases?: readonly string[];
  header: string;
  get: (r: SinfoRecord, width: number) => string | undefined;
  match?: MatchKey;
  /** False: the header is printed without cutting (node lists). */
  cutHeader?: boolean;
}

/** "4", "4+" (Slurm's min/max string without a range). */
function minPlus(r: SinfoRecord, get: (n: Node) => number, unit: boolean): string {
  const values = r.nodes.map(get);
  if (values.length === 0) return "0";
  const min = Math.min(...values);
  const max = Math.max(...values);
  const text = unit ? convertNumUnit(min) : String(min);
  return min === max ? (unit ? convertNumUnit(max) : String(max)) : `${text}+`;
}

const avail = (r: SinfoRecord): string => {
  const state = r.part.state.toUpperCase();
  return { UP: "up", DOWN: "down", DRAIN: "drain", INACTIVE: "inactive" }[state] ?? "unknown";
};

/** %P: the name, "*" for the default partition (replacing the last character when it does not fit). */
function partitionName(r: SinfoRecord, width: number): string {
  const name = r.part.name;
  if (!r.part.isDefault) return name;
  if (width === 0 || name.length < width) return `${name}*`;
  return `${name.slice(0, width - 1)}*`;
}

function jobSize(r: SinfoRecord): string {
  const max = r.part.maxNodes;
  const min = r.part.minNodes < 1 && (max === undefined || max > 0) ? 1 : r.part.minNodes;
  if (max === min) return convertNumUnit(min);
  return max === undefined ? `${convertNumUnit(min)}-infinite` : `${convertNumUnit(min)}-${convertNumUnit(max)}`;
}

const state = (get: (n: Node) => string) => (r: SinfoRecord): string => (r.first === undefined ? "n/a" : get(r.first));
const firstText = (get: (n: Node) => string) => (r: SinfoRecord): string | undefined => {
  const text = r.first === undefined ? "" : get(r.first);
  return text === "" ? undefined : text;
};

/** 26.x prints NO where 22.05 printed EXCLUSIVE (exclusivity is a separate field now). */
const overSubscribe = (r: SinfoRecord): string => {
  const text = r.part.oversubscribe.toUpperCase();
  return text === "" || text === "EXCLUSIVE" ? "NO" : text;
};

const cpuLoad = (r: SinfoRecord): string => {
  const loads = r.nodes.map((n) => n.cpuLoad);
  if (loads.length === 0) return "N/A";
  const min = Math.min(...loads);
  return min === Math.max(...loads) ? min.toFixed(2) : `${min.toFixed(2)}+`;
};

const userLong = (r: SinfoRecord): string => {
  const user = r.first?.reasonUser ?? "";
  return user === "" ? "Unknown" : user;
};

const defaultTime = (r: SinfoRecord): string =>
  r.part.defaultTimeMin === undefined ? "n/a" : formatTimeLimitSinfo(r.part.defaultTimeMin);

const socketCoreThread = (r: SinfoRecord): string =>
  [
    minPlus(r, (n) => n.sockets, true),
    minPlus(r, (n) => n.coresPerSocket, true),
    minPlus(r, (n) => n.threadsPerCore, true),
  ].join(":");

/** A line's node list, made once: sinfo sizes the column with it before printing it (10k names: tens of ms each time). */
const nodeNamesMade = new WeakMap<SinfoRecord, { count: number; text: string }>();
export function nodeNames(r: SinfoRecord): string {
  const made = nodeNamesMade.get(r);
  if (made !== undefined && made.count === r.nodes.length) return made.text;
  const text = hostlistUniq(r.nodes.map((n) => n.name));
  nodeNamesMade.set(r, { count: r.nodes.length, text });
  return text;
}

const f = (
  key: string,
  letter: string | undefined,
  header: string,
  get: SinfoField["get"],
  extra: Partial<SinfoField> = {},
): SinfoField => ({
  key, ...(letter === undefined ? {} : { letter }), header, get, ...extra,
});

/** Every sinfo column, in sinfo-format.tsv order. */
export const SINFO_FIELDS: readonly SinfoField[] = [
  f("AllocMem", undefined, "ALLOCMEM", (r) => String(r.nodes.reduce((s, n) => s + n.allocMemoryMib, 0)), { match: "allocMem" }),
  f("AllocNodes", "S", "ALLOCNODES", () => "all"),
  f("Available", "a", "AVAIL", avail, { match: "avail" }),
  f("Cluster", "V", "CLUSTER", () => "N/A"),
  f("Comment", undefined, "COMMENT", () => undefined),
  f("Cores", "Y", "CORES", (r) => minPlus(r, (n) => n.coresPerSocket, true), { match: "cores" }),
  f("CPUs", "c", "CPUS", (r) => minPlus(r, (n) => n.cpus, true), { match: "cpus" }),
  f("CPUsLoad", "O", "CPU_LOAD", cpuLoad, { match: "cpuLoad" }),
  f("CPUsState", "C", "CPUS(A/I/O/T)", (r) => `${r.cpusAlloc}/${r.cpusIdle}/${r.cpusOther}/${r.cpusTotal}`, { match: "cpus" }),
  f("DefaultTime", "L", "DEFAULTTIME", defaultTime, { match: "defaultTime" }),
  f("Disk", "d", "TMP_DISK", (r) => minPlus(r, (n) => n.tmpDiskMib, false), { match: "disk" }),
  f("Extra", undefined, "EXTRA", () => undefined),
  f("Features", "f", "AVAIL_FEATURES", firstText((n) => n.features), { match: "features" }),
  f("features_act", "b", "ACTIVE_FEATURES", firstText((n) => n.features), { match: "featuresAct" }),
  f("FreeMem", "e", "FREE_MEM", (r) => minPlus(r, (n) => n.freeMemoryMib, false), { match: "freeMem" }),
  f("Gres", "G", "GRES", firstText((n) => gresWithSockets(n)), { match: "gres" }),
  f("GresUsed", undefined, "GRES_USED", firstText(gresUsedShown), { match: "gresUsed" }),
  // AllowGroups=ALL is no list at all in Slurm (scontrol shows ALL, sinfo "all"; oracle 22.05)
  f("Groups", "g", "GROUPS", (r) => (r.part.allowGroups === "" || r.part.allowGroups.toUpperCase() === "ALL" ? "all" : r.part.allowGroups), { match: "groups" }),
  f("MaxCPUsPerNode", "B", "MAX_CPUS_PER_NODE", () => "UNLIMITED", { match: "maxCpusPerNode" }),
  f("Memory", "m", "MEMORY", (r) => minPlus(r, (n) => n.realMemoryMib, false), { match: "memory" }),
  f("NodeAddr", "o", "NODE_ADDR", (r) => hostlistUniq(r.nodes.map((n) => n.addr)), { match: "nodeAddr", cutHeader: false }),
  f("NodeAI", "A", "NODES(A/I)", (r) => `${r.nodesAlloc}/${r.nodesIdle}`),
  f("NodeAIOT", "F", "NODES(A/I/O/T)", (r) => `${r.nodesAlloc}/${r.nodesIdle}/${r.nodesOther}/${r.nodes.length}`),
  f("NodeHost", "n", "HOSTNAMES", (r) => hostlistUniq(r.nodes.map((n) => n.hostname)), { match: "hostnames", cutHeader: false }),
  f("NodeList", "N", "NODELIST", nodeNames, { cutHeader: false }),
  f("Nodes", "D", "NODES", (r) => String(r.nodes.length)),
  f("OverSubscribe", "h", "OVERSUBSCRIBE", overSubscribe, { match: "oversubscribe", aliases: ["Share"] }),
  f("Partition", "P", "PARTITION", partitionName, { match: "partition" }),
  f("PartitionName", "R", "PARTITION", (r) => r.part.name, { match: "partition" }),
  f("Port", undefined, "PORT", (r) => minPlus(r, (n) => n.port, false), { match: "port" }),
  f("PreemptMode", "M", "PREEMPT_MODE", () => "OFF", { match: "preemptMode" }),
  f("PriorityJobFactor", "I", "PRIO_JOB_FACTOR", (r) => String(r.part.priorityJobFactor), { match: "priorityJobFactor" }),
  f("PriorityTier", "p", "PRIO_TIER", (r) => String(r.part.priorityTier), { match: "priorityTier" }),
  f("Reason", "E", "REASON", (r) => r.first?.reason || "none", { match: "reason" }),
  // 26.x column (sinfo -l shows it); Spur has no reservations yet.
  f("Reservation", "i", "RESERVATION", () => ""),
  f("Root", "r", "ROOT", (r) => (r.part.rootOnly ? "yes" : "no"), { match: "root" }),
  f("Size", "s", "JOB_SIZE", jobSize, { match: "jobSize" }),
  f("Sockets", "X", "SOCKETS", (r) => minPlus(r, (n) => n.sockets, true), { match: "sockets" }),
  f("SocketCoreThread", "z", "S:C:T", socketCoreThread, { match: "sct" }),
  f("StateCompact", "t", "STATE", state(nodeStateCompact), { match: "state" }),
  f("StateComplete", undefined, "STATECOMPLETE", state(nodeStateSinfoComplete), { match: "state" }),
  f("StateLong", "T", "STATE", state(nodeStateLong), { match: "state" }),
  f("Threads", "Z", "THREADS", (r) => minPlus(r, (n) => n.threadsPerCore, true), { match: "threads" }),
  f("Time", "l", "TIMELIMIT", (r) => formatTimeLimitSinfo(r.part.maxTimeMin), { match: "maxTime" }),
  f("TimeStamp", "H", "TIMESTAMP", (r) => formatIsoTime(r.first?.reasonTime ?? 0, "Unknown"), { match: "reasonTime" }),
  f("User", "u", "USER", userLong, { match: "reasonUser" }),
  f("UserLong", "U", "USER", userLong, { match: "reasonUser" }),
  f("Version", "v", "VERSION", firstText((n) => n.version), { match: "version" }),
  f("Weight", "w", "WEIGHT", (r) => minPlus(r, (n) => n.weight, false), { match: "weight" }),
];

const BY_KEY = new Map(SINFO_FIELDS.map((c) => [c.key, c]));

/** `-o` letter → key (the first row with a letter wins, so %G is Gres). */
export const sinfoLetter = (letter: string): string | undefined => SINFO_FIELDS.find((c) => c.letter === letter)?.key;

/** `-O` name (any case) → key. */
export const sinfoName = (name: string): string | undefined =>
  SINFO_FIELDS.find((c) => [c.key, ...(c.aliases ?? [])].some((n) => n.toLowerCase() === name.toLowerCase()))?.key;

/** The grouping attribute of a column, if it has one. */
export const sinfoMatch = (key: string): MatchKey | undefined => BY_KEY.get(key)?.match;

export function sinfoColumn(key: string): ColumnDef<SinfoRecord> {
  const c = BY_KEY.get(key);
  assert(c !== undefined, `unknown sinfo column ${key}`);
  return { header: c.header, value: c.get, ...(c.cutHeader === undefined ? {} : { cutHeader: c.cutHeader }) };
}

/** sinfo's `-o %all`: lower-case letters joined by "|", then "|%X " for upper case (as Slurm builds it). */
export const SINFO_ALL_FORMAT =
  [..."abcdefghijklmnopqrstuvwxyz"].map((l) => `%${l}`).join("|") + [..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"].map((l) => `|%${l} `).join("");
