/**
 * @module devices/node-gpus
 * What a node registers about its GPUs: count, gres types, link topology, the
 * device files and local CPUs of each GPU index. Three sources, in Slurm's order
 * of trust: discovery (gres.conf `AutoDetect=`), gres.conf lines (`File=`,
 * `Links=`, `Cores=`), and the NodeName line's `Gres=` count alone. Pure.
 * A node may hold several GPU types (MIG profiles next to whole GPUs, or several
 * gres.conf Type= values): the schedulable units are numbered 0..n-1 grouped by
 * type, types in order of first appearance, so that the gres text
 * ("gpu:3g.40gb:1,gpu:1g.10gb:2,gpu:h100:7") alone tells which index has which type.
 * A MIG unit's device files are its parent GPU's /dev/nvidiaN plus its two
 * capability files (GPU instance, compute instance), comma-separated as Slurm's
 * MultipleFiles; its unique id (the MIG UUID) is what CUDA_VISIBLE_DEVICES carries.
 * Local CPUs are registered in logical numbering (cpu-topology.ts).
 */
import { topologyFromLinks, topologyFromMatrix } from "./gpu-topology.ts";
import type { DeclaredGpu, NodeGres } from "../compat/conf/gres-conf.ts";
import { formatCpuList, parseCpuList } from "../lib/cpu-list.ts";
import { coresToLogicalCpus, osToLogicalCpus, type CpuTopology } from "./cpu-topology.ts";
import { gpuUnits, type DeviceInventory, type GpuUnit, type LinkMatrix } from "./inventory.ts";

export interface NodeGpuFacts {
  gpuCount: number;
  /** The first GPU type ("" when untyped). */
  gpuModel: string;
  /** NodeInfo.gres text: "gpu:mi300x:8", "gpu:1g.10gb:3,gpu:h100:7", "" without GPUs. */
  gres: string;
  gpuTopology: string;
  /** gres type of each GPU index. */
  gpuTypes: string[];
  /** Device file(s) per GPU index, comma-separated when several ("" where unknown). */
  gpuFiles: string[];
  /** Logical CPUs local to each GPU index as a list expression ("0-15"; "" where unknown). */
  gpuCpus: string[];
  /** Identity the visible-device variables carry instead of the index (MIG UUIDs); "" = the index. */
  gpuUniqueIds: string[];
  /** Where the facts came from: "discovered", "gres.conf", "spur.conf". */
  source: string;
  warnings: string[];
}

/** gres.conf AutoDetect values that mean "ask the hardware". */
export const AUTODETECT_VALUES: ReadonlySet<string> = new Set(["nvml", "rsmi", "nvidia", "spur"]);

export interface ConfiguredGpus {
  gpuCount: number;
  gpuModel: string;
}

/**
 * `cpus` is the node's CPU topology; without it CPU lists pass through unchanged
 * (gres.conf Cores= read as CPU ids, discovery's OS ids kept).
 */
export function nodeGpuFacts(configured: ConfiguredGpus, gres: NodeGres | undefined, inventory: DeviceInventory | undefined, cpus?: CpuTopology): NodeGpuFacts {
  if (inventory !== undefined && inventory.gpus.length > 0) return fromInventory(configured, inventory, cpus);
  if (gres !== undefined && gres.gpus.length > 0) return fromGresConf(configured, gres.gpus, cpus);
  const type = configured.gpuModel;
  return facts(Array.from({ length: configured.gpuCount }, () => type), "", [], [], [], "spur.conf", []);
}

/** Order that groups indices by type (types in order of first appearance), stable inside a type. */
function groupedOrder(types: readonly string[]): number[] {
  const firsts = [...new Set(types)];
  return firsts.flatMap((t) => types.flatMap((u, i) => (u === t ? [i] : [])));
}

function fromGresConf(configured: ConfiguredGpus, declared: DeclaredGpu[], cpus: CpuTopology | undefined): NodeGpuFacts {
  const types = declared.map((g) => g.type || configured.gpuModel);
  const order = groupedOrder(types);
  const gpus = order.map((i) => declared[i]!);
  const warnings: string[] = [];
  if (gpus.length !== configured.gpuCount) warnings.push(`gres.conf declares ${gpus.length} GPUs, spur.conf Gres= says ${configured.gpuCount}`);
  // Links= rows follow the declared order: permute rows and columns with the GPUs.
  const links = gpus.map((g) => (g.links === undefined || g.links.length !== declared.length ? undefined : order.map((j) => g.links![j]!)));
  const coreCpus = (text: string) => (cpus === undefined || text === "" ? text : formatCpuList(coresToLogicalCpus(parseCpuList(text), cpus)));
  return facts(order.map((i) => types[i]!), topologyFromLinks(links), gpus.map((g) => g.file), gpus.map((g) => coreCpus(g.cores)), [], "gres.conf", warnings);
}

function fromInventory(configured: ConfiguredGpus, inventory: DeviceInventory, cpus: CpuTopology | undefined): NodeGpuFacts {
  const found = gpuUnits(inventory);
  const units = groupedOrder(found.map((u) => u.type)).map((i) => found[i]!);
  const warnings: string[] = [];
  if (configured.gpuCount > 0 && units.length !== configured.gpuCount) {
    warnings.push(`discovered ${units.length} GPUs (${[...new Set(units.map((u) => u.type))].join(",")}), spur.conf Gres= says ${configured.gpuCount}`);
  }
  const files = units.map((u) => unitFiles(inventory, u));
  const anyWhole = units.some((u) => u.instanceIndex < 0);
  const topology = anyWhole ? topologyFromMatrix(unitMatrix(inventory.links, units)) : "";
  const local = (u: GpuUnit) => {
    const text = inventory.gpus[u.gpuIndex]?.cpuAffinity ?? "";
    return cpus === undefined || text === "" ? text : formatCpuList(osToLogicalCpus(parseCpuList(text), cpus));
  };
  const ids = units.map((u) => (u.instanceIndex >= 0 ? u.uuid : ""));
  return facts(units.map((u) => u.type), topology, files, units.map(local), ids, "discovered", warnings);
}

/** A whole GPU's device file; a MIG unit's parent file and capability files (Slurm's MultipleFiles). */
function unitFiles(inventory: DeviceInventory, u: GpuUnit): string {
  const gpu = inventory.gpus[u.gpuIndex];
  const main = gpu?.deviceNodes.find((d) => /renderD|nvidia\d/.test(d.path))?.path ?? gpu?.deviceNodes[0]?.path ?? "";
  if (u.instanceIndex < 0) return main;
  const caps = gpu?.partition.instances[u.instanceIndex]?.deviceNodes.map((d) => d.path) ?? [];
  return [main, ...caps].filter((p) => p !== "").join(",");
}

/** Links among the units, renumbered 0..n-1; a MIG unit has no fabric link to anything (as in Slurm). */
function unitMatrix(links: LinkMatrix, units: GpuUnit[]): LinkMatrix {
  return {
    size: units.length,
    links: units.map((a, i) => units.map((b, j) => (i === j || a.instanceIndex >= 0 || b.instanceIndex >= 0 ? undefined : links.links[a.gpuIndex]?.[b.gpuIndex]))),
  };
}

/** "gpu:3g.40gb:1,gpu:h100:7" from per-index types (already grouped); untyped → "gpu:N". */
export function gresOfTypes(types: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const t of types) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts].map(([t, n]) => `gpu:${t ? `${t}:` : ""}${n}`).join(",");
}

function facts(types: string[], topology: string, files: string[], cpus: string[], ids: string[], source: string, warnings: string[]): NodeGpuFacts {
  return {
    gpuCount: types.length, gpuModel: types[0] ?? "", gres: gresOfTypes(types), gpuTopology: topology, gpuTypes: types,
    gpuFiles: files, gpuCpus: cpus, gpuUniqueIds: ids.some((u) => u !== "") ? ids : [], source, warnings,
  };
}
