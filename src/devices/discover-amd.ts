/**
 * @module devices/discover-amd
 * AMD GPUs from a sysfs snapshot: KFD topology nodes give identity, memory, hive
 * and links; the DRM card with the same PCI address gives /dev/dri/cardN, NUMA
 * node and partition modes; /proc/devices gives /dev/kfd's major. Pure.
 */
import { ok, type Result } from "../lib/result.ts";
import { assert } from "../lib/assert.ts";
import { noPartition, type DeviceNodeRef, type GpuDevice, type LinkMatrix } from "./inventory.ts";
import { amdLinkMatrix } from "./link-matrix.ts";
import { DRM_MAJOR, drmForPci, normalizePciBusId, parseDrmEntries, type DrmEntry } from "./parse-drm.ts";
import { amdGpuUuid, amdModelName, gfxTargetName, parseKfdTopology, type KfdNode } from "./parse-kfd.ts";
import { parseProcDevices } from "./parse-proc.ts";
import type { PciDeviceText, SysfsSnapshot } from "./sysfs-snapshot.ts";

export interface VendorDiscovery {
  gpus: GpuDevice[];
  links: LinkMatrix;
  shared: DeviceNodeRef[];
  warnings: string[];
}

const MIB = 1024 * 1024;

export function pciBySlot(pci: PciDeviceText[], busId: string): PciDeviceText | undefined {
  return pci.find((p) => normalizePciBusId(p.slot) === busId);
}

function numaOf(node: KfdNode, card: DrmEntry | undefined, pci: PciDeviceText | undefined, cpuIds: Set<number>): number {
  if (card !== undefined && card.numaNode >= 0) return card.numaNode;
  const fromPci = Number((pci?.numaNode ?? "").trim());
  if ((pci?.numaNode ?? "").trim() !== "" && Number.isInteger(fromPci) && fromPci >= 0) return fromPci;
  // KFD numbers CPU nodes by proximity domain, which is the NUMA node on Linux.
  return node.ioLinks.find((l) => cpuIds.has(l.nodeTo))?.nodeTo ?? -1;
}

function amdGpu(node: KfdNode, index: number, drm: DrmEntry[], snapshot: SysfsSnapshot, cpuIds: Set<number>, warnings: string[]): GpuDevice {
  const card = drmForPci(drm, "card", node.pciBusId);
  const render = drm.find((e) => e.kind === "render" && e.number === node.renderMinor);
  if (render !== undefined && render.pciSlot !== "" && render.pciSlot !== node.pciBusId) {
    warnings.push(`GPU ${index}: renderD${node.renderMinor} belongs to ${render.pciSlot}, KFD says ${node.pciBusId}`);
  }
  if (card === undefined) warnings.push(`GPU ${index} (${node.pciBusId}): no DRM card in /sys/class/drm`);
  const pci = pciBySlot(snapshot.pciDisplay, node.pciBusId);
  const deviceNodes: DeviceNodeRef[] = [];
  if (card !== undefined) deviceNodes.push({ path: `/dev/dri/card${card.number}`, major: card.major >= 0 ? card.major : DRM_MAJOR, minor: card.minor >= 0 ? card.minor : card.number });
  if (node.renderMinor >= 0) deviceNodes.push({ path: `/dev/dri/renderD${node.renderMinor}`, major: DRM_MAJOR, minor: node.renderMinor });
  const model = amdModelName(node);
  const arch = gfxTargetName(node.gfxTargetVersion);
  const computeMode = card?.computePartition ?? "";
  return {
    index,
    vendor: "amd",
    model,
    gresType: amdGresType(model, arch, computeMode),
    arch,
    pciBusId: node.pciBusId,
    uniqueId: amdGpuUuid(node.uniqueId),
    deviceNodes,
    minor: node.renderMinor,
    cardIndex: card?.number ?? -1,
    numaNode: numaOf(node, card, pci, cpuIds),
    cpuAffinity: (pci?.localCpuList ?? "").trim(),
    memoryMiB: Math.floor(node.memoryBytes / MIB),
    hiveId: node.hiveId === "0" ? "" : node.hiveId,
    partition: computeMode === "" ? noPartition() : { mode: computeMode, memoryMode: card?.memoryPartition ?? "", instances: [] },
  };
}

/**
 * Short gres type: "mi300x", or the target for unknown products; a compute partition of a
 * device split in several (CPX, DPX, ...) is a smaller GPU, typed like Slurm's MIG types
 * (device, "_", partition): "mi300x_cpx".
 */
export function amdGresType(model: string, arch: string, computeMode: string): string {
  const base = /^MI\d/.test(model) ? model.toLowerCase() : arch;
  return computeMode === "" || /^spx$/i.test(computeMode) ? base : `${base}_${computeMode.toLowerCase()}`;
}

/** AMD part of the inventory; an empty result (not an error) when the host has no KFD. */
export function discoverAmd(snapshot: SysfsSnapshot): Result<VendorDiscovery> {
  const topology = parseKfdTopology(snapshot.kfdNodes);
  if (!topology.ok) return topology;
  const nodes = topology.value;
  const gpuNodes = nodes.filter((n) => n.isGpu);
  const warnings: string[] = [];
  if (gpuNodes.length === 0) return ok({ gpus: [], links: amdLinkMatrix([]), shared: [], warnings });
  const drm = parseDrmEntries(snapshot.drm);
  const cpuIds = new Set(nodes.filter((n) => !n.isGpu).map((n) => n.id));
  const gpus = gpuNodes.map((node, i) => amdGpu(node, i, drm, snapshot, cpuIds, warnings));
  const kfdMajor = parseProcDevices(snapshot.procDevices ?? "").get("kfd");
  const shared: DeviceNodeRef[] = [kfdMajor === undefined ? { path: "/dev/kfd" } : { path: "/dev/kfd", major: kfdMajor, minor: 0 }];
  const links = amdLinkMatrix(nodes);
  assert(links.size === gpus.length, "one link-matrix row per AMD GPU");
  return ok({ gpus, links, shared, warnings });
}
