/**
 * @module devices/discover-nvidia
 * NVIDIA GPUs from nvidia-smi output (-q -x for identity and MIG, topo -m for
 * links and CPU/NUMA affinity, -L for MIG UUIDs and profiles) plus the sysfs
 * snapshot (PCI NUMA node and local CPUs, /proc majors, MIG capability minors). Pure.
 */
import { err, ok, type Result } from "../lib/result.ts";
import { assert } from "../lib/assert.ts";
import { emptyMatrix, noPartition, type DeviceNodeRef, type GpuDevice, type GpuInstance, type LinkMatrix } from "./inventory.ts";
import { pciBySlot, type VendorDiscovery } from "./discover-amd.ts";
import { nvidiaLinkMatrix } from "./link-matrix.ts";
import { nvidiaGresType, nvidiaModelName, parseNvidiaSmiList, parseNvidiaSmiXml, type NvidiaSmiGpu, type NvidiaSmiListGpu } from "./parse-nvidia-smi.ts";
import { parseNvidiaTopo, type NvidiaTopo } from "./parse-nvidia-topo.ts";
import { migCapMinor, parseMigMinors, parseProcDevices, type MigCapMinor } from "./parse-proc.ts";
import type { NvidiaSmiTexts } from "./run-nvidia-smi.ts";
import type { SysfsSnapshot } from "./sysfs-snapshot.ts";

/** /dev/nvidiaN and /dev/nvidiactl use the fixed NVIDIA major; nvidiactl is minor 255. */
export const NVIDIA_MAJOR = 195;
export const NVIDIACTL_MINOR = 255;

interface Context {
  topo: NvidiaTopo | undefined;
  list: NvidiaSmiListGpu[];
  caps: MigCapMinor[];
  capsMajor: number | undefined;
  snapshot: SysfsSnapshot;
  warnings: string[];
}

function capNode(ctx: Context, minor: number | undefined): DeviceNodeRef[] {
  if (minor === undefined) return [];
  const path = `/dev/nvidia-caps/nvidia-cap${minor}`;
  return [ctx.capsMajor === undefined ? { path, minor } : { path, major: ctx.capsMajor, minor }];
}

function migInstances(gpu: NvidiaSmiGpu, ctx: Context): GpuInstance[] {
  const listed = ctx.list.find((l) => l.uuid === gpu.uuid);
  return gpu.migDevices.map((m) => {
    const fromList = listed?.migs.find((x) => x.index === m.index);
    const nodes = [...capNode(ctx, migCapMinor(ctx.caps, gpu.minorNumber, m.gpuInstanceId, -1)), ...capNode(ctx, migCapMinor(ctx.caps, gpu.minorNumber, m.gpuInstanceId, m.computeInstanceId))];
    if (nodes.length < 2) ctx.warnings.push(`GPU ${gpu.index} MIG ${m.index}: capability minors unknown (no /proc/driver/nvidia-caps/mig-minors entry)`);
    return {
      index: m.index, profile: fromList?.profile ?? "", gpuInstanceId: m.gpuInstanceId, computeInstanceId: m.computeInstanceId,
      uuid: m.uuid !== "" ? m.uuid : (fromList?.uuid ?? ""), memoryMiB: m.memoryMiB, multiprocessors: m.multiprocessors, deviceNodes: nodes,
    };
  });
}

function nvidiaGpu(gpu: NvidiaSmiGpu, ctx: Context): GpuDevice {
  const pci = pciBySlot(ctx.snapshot.pciDisplay, gpu.pciBusId);
  const pciNuma = (pci?.numaNode ?? "").trim();
  const topoNuma = ctx.topo?.numaAffinity[gpu.index] ?? -1;
  const migOn = gpu.migMode === "Enabled";
  return {
    index: gpu.index,
    vendor: "nvidia",
    model: nvidiaModelName(gpu.productName),
    gresType: nvidiaGresType(gpu.productName),
    arch: gpu.architecture,
    pciBusId: gpu.pciBusId,
    uniqueId: gpu.uuid,
    deviceNodes: gpu.minorNumber < 0 ? [] : [{ path: `/dev/nvidia${gpu.minorNumber}`, major: NVIDIA_MAJOR, minor: gpu.minorNumber }],
    minor: gpu.minorNumber,
    cardIndex: -1,
    numaNode: topoNuma >= 0 ? topoNuma : /^\d+$/.test(pciNuma) ? Number(pciNuma) : -1,
    cpuAffinity: ctx.topo?.cpuAffinity[gpu.index] || (pci?.localCpuList ?? "").trim(),
    memoryMiB: gpu.memoryMiB,
    hiveId: "",
    partition: migOn ? { mode: "mig", memoryMode: "", instances: migInstances(gpu, ctx) } : noPartition(),
  };
}

function topologyFor(texts: NvidiaSmiTexts, count: number, warnings: string[]): NvidiaTopo | undefined {
  if (texts.topo === undefined) return undefined;
  const topo = parseNvidiaTopo(texts.topo);
  if (!topo.ok) {
    warnings.push(`nvidia-smi topo -m: ${topo.error.message}`);
    return undefined;
  }
  if (topo.value.gpuCodes.length !== count) {
    warnings.push(`nvidia-smi topo -m lists ${topo.value.gpuCodes.length} GPUs, -q -x lists ${count}; links ignored`);
    return undefined;
  }
  return topo.value;
}

function sharedNodes(majors: Map<string, number>): DeviceNodeRef[] {
  const uvm = majors.get("nvidia-uvm");
  return [
    { path: "/dev/nvidiactl", major: NVIDIA_MAJOR, minor: NVIDIACTL_MINOR },
    uvm === undefined ? { path: "/dev/nvidia-uvm" } : { path: "/dev/nvidia-uvm", major: uvm, minor: 0 },
    uvm === undefined ? { path: "/dev/nvidia-uvm-tools" } : { path: "/dev/nvidia-uvm-tools", major: uvm, minor: 1 },
  ];
}

/** NVIDIA part of the inventory. Without nvidia-smi output it only warns about NVIDIA PCI devices it sees. */
export function discoverNvidia(snapshot: SysfsSnapshot, texts: NvidiaSmiTexts | undefined): Result<VendorDiscovery> {
  const warnings: string[] = [];
  if (texts === undefined) {
    const seen = snapshot.pciDisplay.filter((p) => (p.vendor ?? "").trim().toLowerCase() === "0x10de").length;
    if (seen > 0) warnings.push(`${seen} NVIDIA GPU(s) on the PCI bus but no nvidia-smi output; they are not listed`);
    return ok({ gpus: [], links: emptyMatrix(0), shared: [], warnings });
  }
  const log = parseNvidiaSmiXml(texts.query);
  if (!log.ok) return err(log.error.code, log.error.message);
  const majors = parseProcDevices(snapshot.procDevices ?? "");
  const topo = topologyFor(texts, log.value.gpus.length, warnings);
  const ctx: Context = {
    topo, list: parseNvidiaSmiList(texts.list ?? ""), caps: parseMigMinors(snapshot.migMinors ?? ""),
    capsMajor: majors.get("nvidia-caps"), snapshot, warnings,
  };
  const gpus = log.value.gpus.map((g) => nvidiaGpu(g, ctx));
  const links: LinkMatrix = topo === undefined ? emptyMatrix(gpus.length) : nvidiaLinkMatrix(topo.gpuCodes);
  assert(links.size === gpus.length, "one link-matrix row per NVIDIA GPU");
  return ok({ gpus, links, shared: gpus.length === 0 ? [] : sharedNodes(majors), warnings });
}
