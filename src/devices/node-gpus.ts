/**
 * @module devices/node-gpus
 * What a node registers about its GPUs: count, gres type, link topology and the
 * device file of each GPU index. Three sources, in Slurm's order of trust:
 * discovery (gres.conf `AutoDetect=`), gres.conf lines (`File=`, `Links=`), and
 * the NodeName line's `Gres=` count alone (no topology, no files). Pure.
 * A node schedules one GPU type: with MIG, the instances of the most common
 * profile (gpu:1g.10gb) or the whole GPUs, numbered 0..n-1 in unit order.
 */
import { topologyFromLinks, topologyFromMatrix } from "../sched/plan/gpu-topology.ts";
import type { NodeGres } from "../compat/conf/gres-conf.ts";
import { gpuUnits, type DeviceInventory, type LinkMatrix } from "./inventory.ts";

export interface NodeGpuFacts {
  gpuCount: number;
  gpuModel: string;
  /** NodeInfo.gres text: "gpu:mi300x:8", "" without GPUs. */
  gres: string;
  gpuTopology: string;
  /** Device file per GPU index ("" where unknown). */
  gpuFiles: string[];
  /** CPUs local to each GPU index as a list expression ("0-55,112-167"; "" where unknown): gres.conf Cores= or discovery. */
  gpuCpus: string[];
  /** Where the facts came from: "discovered", "gres.conf", "spur.conf". */
  source: string;
  warnings: string[];
}

/** gres.conf AutoDetect values that mean "ask the hardware". */
export const AUTODETECT_VALUES: ReadonlySet<string> = new Set(["nvml", "rsmi", "nvidia", "spur"]);

export function nodeGpuFacts(configured: { gpuCount: number; gpuModel: string }, gres: NodeGres | undefined, inventory: DeviceInventory | undefined): NodeGpuFacts {
  if (inventory !== undefined && inventory.gpus.length > 0) return fromInventory(configured, inventory);
  if (gres !== undefined && gres.gpus.length > 0) {
    const type = gres.gpus[0]?.type || configured.gpuModel;
    const warnings = gres.gpus.some((g) => g.type !== gres.gpus[0]?.type) ? ["gres.conf declares several GPU types on one node; the first is used"] : [];
    if (gres.gpus.length !== configured.gpuCount) warnings.push(`gres.conf declares ${gres.gpus.length} GPUs, spur.conf Gres= says ${configured.gpuCount}`);
    const topology = topologyFromLinks(gres.gpus.map((g) => g.links));
    return facts(gres.gpus.length, type, topology, gres.gpus.map((g) => g.file), gres.gpus.map((g) => g.cores), "gres.conf", warnings);
  }
  return facts(configured.gpuCount, configured.gpuModel, "", [], [], "spur.conf", []);
}

function fromInventory(configured: { gpuCount: number; gpuModel: string }, inventory: DeviceInventory): NodeGpuFacts {
  const units = gpuUnits(inventory);
  // One GPU type per node for now: the most common unit type (first seen on a tie).
  const types = [...new Set(units.map((u) => u.type))];
  const countOf = (t: string) => units.filter((u) => u.type === t).length;
  const type = types.reduce((best, t) => (countOf(t) > countOf(best) ? t : best), types[0] ?? configured.gpuModel);
  const warnings = types.length > 1 ? [`several GPU types on one node (${types.join(",")}); only ${type} is scheduled`] : [];
  const scheduled = units.filter((u) => u.type === type);
  const wholeGpus = scheduled.every((u) => u.instanceIndex < 0);
  const files = scheduled.map((u) => {
    const gpu = inventory.gpus[u.gpuIndex];
    if (u.instanceIndex >= 0) return gpu?.partition.instances[u.instanceIndex]?.deviceNodes[0]?.path ?? "";
    return gpu?.deviceNodes.find((d) => /renderD|nvidia\d/.test(d.path))?.path ?? gpu?.deviceNodes[0]?.path ?? "";
  });
  if (configured.gpuCount > 0 && scheduled.length !== configured.gpuCount) {
    warnings.push(`discovered ${scheduled.length} GPUs of type ${type}, spur.conf Gres= says ${configured.gpuCount}`);
  }
  const topology = wholeGpus ? topologyFromMatrix(subMatrix(inventory.links, scheduled.map((u) => u.gpuIndex))) : "";
  const cpus = scheduled.map((u) => inventory.gpus[u.gpuIndex]?.cpuAffinity ?? "");
  return facts(scheduled.length, type, topology, files, cpus, "discovered", warnings);
}

/** The links among `indices` only, renumbered 0..n-1 (the scheduler numbers the units it schedules). */
function subMatrix(links: LinkMatrix, indices: number[]): LinkMatrix {
  return { size: indices.length, links: indices.map((a) => indices.map((b) => (a === b ? undefined : links.links[a]?.[b]))) };
}

function facts(
  count: number, type: string, topology: string, files: string[], cpus: string[], source: string, warnings: string[],
): NodeGpuFacts {
  const gres = count > 0 ? `gpu:${type ? `${type}:` : ""}${count}` : "";
  return { gpuCount: count, gpuModel: type, gres, gpuTopology: topology, gpuFiles: files, gpuCpus: cpus, source, warnings };
}
