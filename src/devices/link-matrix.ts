/**
 * @module devices/link-matrix
 * Turns vendor topology into the GPU-to-GPU LinkMatrix the scheduler reads:
 * nvidia-smi topo codes through one table, KFD io_links directly (XGMI) or as a
 * path through the CPU nodes (PCIe-only peers). One quality score orders links.
 */
import { assert } from "../lib/assert.ts";
import { emptyMatrix, type GpuLink, type LinkMatrix, type LinkType } from "./inventory.ts";
import { KFD_LINK_PCIE, KFD_LINK_XGMI, KFD_XGMI_WEIGHT_PER_HOP, type KfdIoLink, type KfdNode } from "./parse-kfd.ts";

interface TopoCodeRow {
  code: string;
  type: LinkType;
  weight: number;
  hops: number;
  bandwidthClass: number;
}

/** nvidia-smi topo codes. Weights follow the KFD scale (fabric 15, one PCIe hop 20) so both vendors read alike. */
const NVIDIA_CODES: TopoCodeRow[] = [
  { code: "PIX", type: "PCIE", weight: 20, hops: 1, bandwidthClass: 2 },
  { code: "PXB", type: "PCIE", weight: 30, hops: 2, bandwidthClass: 2 },
  { code: "PHB", type: "PCIE", weight: 40, hops: 2, bandwidthClass: 1 },
  { code: "NODE", type: "PCIE", weight: 50, hops: 3, bandwidthClass: 1 },
  { code: "SYS", type: "SYS", weight: 70, hops: 4, bandwidthClass: 0 },
  { code: "SOC", type: "SYS", weight: 70, hops: 4, bandwidthClass: 0 }, // older drivers' name for SYS
];

/** Link for one topo -m cell; undefined for "X" (self) and unknown codes. */
export function nvidiaLink(code: string): GpuLink | undefined {
  const nv = /^NV(\d+)$/.exec(code);
  if (nv !== null) {
    const links = Number(nv[1]);
    return { type: "NVLINK", weight: KFD_XGMI_WEIGHT_PER_HOP, hops: 1, bandwidthClass: links >= 2 ? 5 : 4, bandwidthMBps: 0, code };
  }
  const row = NVIDIA_CODES.find((r) => r.code === code);
  if (row === undefined) return undefined;
  return { type: row.type, weight: row.weight, hops: row.hops, bandwidthClass: row.bandwidthClass, bandwidthMBps: 0, code };
}

export function nvidiaLinkMatrix(codes: string[][]): LinkMatrix {
  const matrix = emptyMatrix(codes.length);
  for (let a = 0; a < codes.length; a++) {
    for (let b = 0; b < codes.length; b++) {
      if (a !== b) matrix.links[a]![b] = nvidiaLink(codes[a]?.[b] ?? "");
    }
  }
  return matrix;
}

function xgmiLink(io: KfdIoLink): GpuLink {
  const hops = Math.max(1, Math.round(io.weight / KFD_XGMI_WEIGHT_PER_HOP));
  // The kernel reports min = one link's bandwidth and max = all links' (0 for indirect peers).
  const links = io.minBandwidthMBps > 0 ? Math.round(io.maxBandwidthMBps / io.minBandwidthMBps) : 0;
  // Partitions of one device (CPX/DPX...) link at the kernel's intra-socket weight (13), below one XGMI hop:
  // they share the package's own fabric, the closest two GPUs can be.
  if (io.weight < KFD_XGMI_WEIGHT_PER_HOP) {
    return { type: "XGMI", weight: io.weight, hops: 1, bandwidthClass: 6, bandwidthMBps: io.maxBandwidthMBps, code: "XGMI-PKG" };
  }
  const bandwidthClass = hops > 1 || links === 0 ? 3 : links >= 2 ? 5 : 4;
  const code = hops > 1 ? `XGMI-${hops}` : links >= 2 ? `XGMIx${links}` : "XGMI";
  return { type: "XGMI", weight: io.weight, hops, bandwidthClass, bandwidthMBps: io.maxBandwidthMBps, code };
}

/** The link from a GPU node to its CPU (NUMA) node: PCIe on most hosts, XGMI where the CPU is on the fabric. */
function cpuLinkOf(node: KfdNode, cpuIds: Set<number>): KfdIoLink | undefined {
  return node.ioLinks.find((l) => cpuIds.has(l.nodeTo));
}

function pathThroughCpu(a: KfdNode, b: KfdNode, byId: Map<number, KfdNode>, cpuIds: Set<number>): GpuLink {
  const la = cpuLinkOf(a, cpuIds);
  const lb = cpuLinkOf(b, cpuIds);
  if (la === undefined || lb === undefined) return { type: "SYS", weight: 0, hops: 0, bandwidthClass: 0, bandwidthMBps: 0, code: "SYS" };
  if (la.nodeTo === lb.nodeTo) {
    return { type: "PCIE", weight: la.weight + lb.weight, hops: 2, bandwidthClass: 1, bandwidthMBps: 0, code: "PHB" };
  }
  const between = byId.get(la.nodeTo)?.ioLinks.find((l) => l.nodeTo === lb.nodeTo);
  return { type: "SYS", weight: la.weight + (between?.weight ?? 0) + lb.weight, hops: 3, bandwidthClass: 0, bandwidthMBps: 0, code: "SYS" };
}

/** Matrix over the GPU nodes of a KFD topology, GPU index = position among GPU nodes in node-id order. */
export function amdLinkMatrix(nodes: KfdNode[]): LinkMatrix {
  const gpus = nodes.filter((n) => n.isGpu);
  const cpuIds = new Set(nodes.filter((n) => !n.isGpu).map((n) => n.id));
  const byId = new Map(nodes.map((n) => [n.id, n] as const));
  const matrix = emptyMatrix(gpus.length);
  for (let a = 0; a < gpus.length; a++) {
    for (let b = 0; b < gpus.length; b++) {
      if (a === b) continue;
      const ga = gpus[a]!;
      const gb = gpus[b]!;
      const direct = ga.ioLinks.find((l) => l.nodeTo === gb.id);
      if (direct?.type === KFD_LINK_XGMI) matrix.links[a]![b] = xgmiLink(direct);
      else if (direct?.type === KFD_LINK_PCIE) {
        matrix.links[a]![b] = { type: "PCIE", weight: direct.weight, hops: 1, bandwidthClass: 2, bandwidthMBps: direct.maxBandwidthMBps, code: "PIX" };
      } else matrix.links[a]![b] = pathThroughCpu(ga, gb, byId, cpuIds);
    }
  }
  assert(matrix.links.length === gpus.length, "one matrix row per GPU");
  return matrix;
}

/** One number per link, higher is better: the bandwidth class first, then closeness (lower weight). */
export function linkQuality(link: GpuLink | undefined): number {
  if (link === undefined) return 0;
  return link.bandwidthClass * 100 + Math.max(0, 99 - Math.min(99, link.weight));
}

export function linkAt(matrix: LinkMatrix, a: number, b: number): GpuLink | undefined {
  return matrix.links[a]?.[b];
}

/** The worse of the two directions (KFD lists links per direction; they normally agree). */
export function pairQuality(matrix: LinkMatrix, a: number, b: number): number {
  return Math.min(linkQuality(linkAt(matrix, a, b)), linkQuality(linkAt(matrix, b, a)));
}
