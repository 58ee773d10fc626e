/**
 * @module format/scontrol-show-node
 * `scontrol show node` records in Slurm 22.05's layout (goldens 017, 018, 019,
 * 066): CfgTRES/AllocTRES derived from the node's CPUs, memory and GRES, the
 * State= complete form ("IDLE", "MIXED+DRAIN"), power/sensor fields as Slurm
 * prints them when no plugin measures them, and the Reason line when set.
 */
import { formatIsoTime } from "../format-time.ts";
import { nodeStateScontrol } from "../node-states.ts";
import type { Plain } from "../../lib/plain.ts";
import type { NodeInfo } from "../../net/gen/spur/v1/types_pb.ts";
import { convertNumUnit } from "./job-values.ts";
import { formatRecord, orNull } from "./scontrol-record.ts";
import { gresWithSockets } from "./gres-sockets.ts";
import { gresTresText, parseGresItems } from "../gres-generic.ts";
import { gresUsedShown } from "./gres-used.ts";

export type Node = Plain<NodeInfo>;

/** GRES counts by name: "gpu:mi300x:8,nic:2" → [["gpu", 8], ["nic", 2]]. */
export function gresCounts(gres: string): [string, number][] {
  const counts = new Map<string, number>();
  for (const item of gres.split(",").filter((g) => g !== "")) {
    const parts = item.replace(/\(.*\)$/, "").split(":");
    const name = parts[0] ?? "";
    const count = Number(parts[parts.length - 1]);
    counts.set(name, (counts.get(name) ?? 0) + (parts.length > 1 && Number.isFinite(count) ? count : 1));
  }
  return [...counts];
}

/** The tracked counted GRES (AccountingStorageTRES gres/NAME) of `text` as ",gres/nvme=2". */
const trackedTres = (node: Node, text: string): string =>
  node.gresTracked ? gresTresText(parseGresItems(text), node.gresTracked.split(",")) : "";

/** CfgTRES=cpu=4,mem=4000M,billing=4,gres/gpu=8 (then each tracked counted GRES, gres/nvme=2). */
export function configuredTres(node: Node): string {
  const gres = gresCounts(node.gres).map(([n, c]) => `,gres/${n}=${c}`).join("");
  return `cpu=${node.cpus},mem=${convertNumUnit(node.realMemoryMib, 2)},billing=${node.cpus}${gres}${trackedTres(node, node.gresGeneric ?? "")}`;
}

/** AllocTRES=cpu=4,mem=1G,gres/gpu=4 — empty when nothing is allocated. */
export function allocatedTres(node: Node): string {
  const parts: string[] = [];
  if (node.allocCpus > 0) parts.push(`cpu=${node.allocCpus}`);
  if (node.allocMemoryMib > 0) parts.push(`mem=${convertNumUnit(node.allocMemoryMib, 2)}`);
  const used = node.gpuAlloc.length > 0 ? [["gpu", node.gpuAlloc.length] as [string, number]] : gresCounts(node.gresUsed).filter(([n]) => n === "gpu");
  for (const [name, count] of used) if (count > 0) parts.push(`gres/${name}=${count}`);
  const generic = trackedTres(node, node.gresUsed.split(",").filter((g) => !/^gpu(:|$)/.test(g)).join(","));
  return [...parts, ...generic.split(",").filter((t) => t !== "")].join(",");
}

const timeOrNone = (t: number): string => formatIsoTime(t, "None");

export interface ShowNodeOptions {
  oneLiner: boolean;
  detail: boolean;
}

/** One `scontrol show node` record. */
export function formatNodeRecord(node: Node, o: ShowNodeOptions): string {
  const lines = [
    `NodeName=${node.name} Arch=${node.arch} CoresPerSocket=${node.coresPerSocket} `,
    `CPUAlloc=${node.allocCpus} CPUEfctv=${node.cpus} CPUTot=${node.cpus} CPULoad=${node.cpuLoad.toFixed(2)}`,
    `AvailableFeatures=${orNull(node.features)}`,
    `ActiveFeatures=${orNull(node.features)}`,
    `Gres=${orNull(gresWithSockets(node))}`,
  ];
  if (o.detail) lines.push(`GresUsed=${gresUsedShown(node)}`);
  // Spur's own field (-d only, so plain output stays Slurm's): how spurd contains jobs there.
  if (o.detail && node.cgroup) lines.push(`Containment=${node.cgroup}`);
  lines.push(
    `NodeAddr=${node.addr} NodeHostName=${node.hostname} Port=${node.port} Version=${node.version}`,
    `OS=${node.os} `,
    `RealMemory=${node.realMemoryMib} AllocMem=${node.allocMemoryMib} FreeMem=${node.freeMemoryMib} Sockets=${node.sockets} Boards=1`,
    `State=${nodeStateScontrol(node)} ThreadsPerCore=${node.threadsPerCore} TmpDisk=${node.tmpDiskMib} Weight=${node.weight} Owner=N/A MCS_label=N/A`,
  );
  if (node.partitions.length > 0) lines.push(`Partitions=${node.partitions.join(",")} `);
  lines.push(
    `BootTime=${timeOrNone(node.bootTime)} SlurmdStartTime=${timeOrNone(node.registeredTime)}`,
    `LastBusyTime=${formatIsoTime(node.lastBusyTime)}`,
    `CfgTRES=${configuredTres(node)}`,
    `AllocTRES=${allocatedTres(node)}`,
    "CapWatts=n/a",
    "CurrentWatts=0 AveWatts=0",
    "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s",
  );
  if (node.reason !== "") {
    const who = node.reasonUser === "" ? "" : ` [${node.reasonUser}@${formatIsoTime(node.reasonTime)}]`;
    lines.push(`Reason=${node.reason}${who}`);
  }
  return formatRecord(lines, o.oneLiner, "plain");
}
