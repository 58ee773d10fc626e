/**
 * @module rest/serialize-sinfo
 * One sinfo line (compat/format/sinfo-records' SinfoRecord: a partition and
 * the nodes grouped on it) → data_parser's `sinfo_data`. Counts come from the
 * record as the text columns use them; sizes are the min/max over its nodes;
 * host lists are expanded name arrays (data_parser dumps a hostlist so);
 * the partition is the same `partition_info` GET /partitions/ serves.
 */
import type { SinfoRecord } from "../../compat/format/sinfo-records.ts";
import type { Infer } from "./schema.ts";
import { infinite, noValue, value } from "./schemas-common.ts";
import type { SinfoData } from "./schemas-sinfo.ts";
import { nodeStateArray, partitionValue } from "./serialize-cluster.ts";

export type SinfoDataValue = Infer<typeof SinfoData>;
type Node = SinfoRecord["nodes"][number];

function range(nodes: readonly Node[], get: (n: Node) => number): { minimum: number; maximum: number } {
  if (nodes.length === 0) return { minimum: 0, maximum: 0 };
  let minimum = Number.POSITIVE_INFINITY;
  let maximum = Number.NEGATIVE_INFINITY;
  for (const n of nodes) {
    const v = get(n);
    if (v < minimum) minimum = v;
    if (v > maximum) maximum = v;
  }
  return { minimum, maximum };
}

/** Distinct values in first-seen order (hostnames/addresses may repeat names). */
const uniq = (xs: readonly string[]): string[] => [...new Set(xs.filter((x) => x !== ""))];

export function sinfoDataValue(rec: SinfoRecord, cluster: string): SinfoDataValue {
  const { nodes, first } = rec;
  const freeMem = range(nodes, (n) => n.freeMemoryMib);
  const names = nodes.map((n) => n.name);
  return {
    port: first?.port ?? 0,
    node: { state: first === undefined ? [] : nodeStateArray(first) },
    nodes: {
      allocated: rec.nodesAlloc, idle: rec.nodesIdle, other: rec.nodesOther, total: nodes.length,
      hostnames: uniq(nodes.map((n) => n.hostname || n.name)), addresses: uniq(nodes.map((n) => n.addr)),
      nodes: uniq(names),
    },
    cpus: {
      allocated: rec.cpusAlloc, idle: rec.cpusIdle, other: rec.cpusOther, total: rec.cpusTotal,
      ...range(nodes, (n) => n.cpus),
      load: range(nodes, (n) => Math.round(n.cpuLoad * 100)),
      per_node: { max: infinite() },
    },
    memory: {
      ...range(nodes, (n) => n.realMemoryMib),
      free: nodes.length === 0 ? { minimum: noValue(), maximum: noValue() } : { minimum: value(freeMem.minimum), maximum: value(freeMem.maximum) },
      allocated: nodes.reduce((sum, n) => sum + n.allocMemoryMib, 0),
    },
    features: { total: first?.features ?? "", active: first?.features ?? "" },
    gres: { total: [first?.gres ?? "", first?.gresGeneric ?? ""].filter((g) => g !== "").join(","), used: first?.gresUsed ?? "" },
    cluster, comment: "", extra: "", reason: first?.reason ?? "", reservation: "",
    sockets: range(nodes, (n) => n.sockets), cores: range(nodes, (n) => n.coresPerSocket),
    threads: range(nodes, (n) => n.threadsPerCore), disk: range(nodes, (n) => n.tmpDiskMib),
    weight: range(nodes, (n) => n.weight),
    partition: partitionValue(rec.part, cluster),
  };
}
