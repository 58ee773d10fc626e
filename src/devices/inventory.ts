/**
 * @module devices/inventory
 * The DeviceInventory model: what one node's GPU discovery found (GPUs with
 * their identity, device nodes, NUMA placement, memory and partitioning) plus
 * the GPU-to-GPU link matrix the scheduler's placement reads. Plain data only.
 */

export type GpuVendor = "amd" | "nvidia";

/** Interconnect class between two GPUs, best first: fabric links, then PCIe, then across sockets. */
export type LinkType = "XGMI" | "NVLINK" | "PCIE" | "SYS";

/** One GPU-to-GPU link as the topology reports it (or derives it through the CPU). */
export interface GpuLink {
  type: LinkType;
  /** KFD-style distance: lower is closer (XGMI 15 per hop, PCIe 20 per hop, NUMA distance between sockets). */
  weight: number;
  /** Hops on the path: XGMI hops, or PCIe bridges crossed. */
  hops: number;
  /** 0 = across sockets, 1 = through a host bridge, 2 = behind PCIe switches,
   *  3 = fabric but indirect (multi-hop), 4 = one direct fabric link, 5 = bonded fabric links,
   *  6 = partitions of one package (AMD CPX/DPX: the device's own fabric). */
  bandwidthClass: number;
  /** Peak bandwidth in MB/s where the topology states it (KFD max_bandwidth), else 0. */
  bandwidthMBps: number;
  /** The raw code shown to people: "NV18", "XGMI", "PIX", "SYS", ... */
  code: string;
}

/** Square matrix of links between GPUs, indexed by GPU index; the diagonal is undefined. */
export interface LinkMatrix {
  size: number;
  links: (GpuLink | undefined)[][];
}

/** A device file a container or job needs, with its char-device numbers when known. */
export interface DeviceNodeRef {
  path: string;
  major?: number;
  minor?: number;
}

/** A MIG (or other hardware partition) instance carved out of one GPU. */
export interface GpuInstance {
  /** Position in the parent's instance list (nvidia-smi's MIG device index). */
  index: number;
  /** Profile name such as "3g.40gb", "" when the tool did not say. */
  profile: string;
  gpuInstanceId: number;
  computeInstanceId: number;
  /** MIG-... UUID, "" when the tool did not say. */
  uuid: string;
  memoryMiB: number;
  multiprocessors: number;
  /** Capability device files (/dev/nvidia-caps/nvidia-capN) granting access to this instance. */
  deviceNodes: DeviceNodeRef[];
}

/** How the GPU is split: AMD compute/memory partition modes, NVIDIA MIG. */
export interface GpuPartition {
  /** "none", "mig" (NVIDIA MIG enabled), or the AMD compute mode ("SPX", "CPX", ...). */
  mode: string;
  /** AMD memory partition ("NPS1", ...), "" otherwise. */
  memoryMode: string;
  instances: GpuInstance[];
}

export interface GpuDevice {
  /** 0-based index in the order the vendor runtime numbers GPUs (KFD node order, nvidia-smi order). */
  index: number;
  vendor: GpuVendor;
  /** Marketing model: "MI300X", "H100 80GB HBM3", "L40S". */
  model: string;
  /** Short lowercase name suitable for a gres type: "mi300x", "h100", "l40s". */
  gresType: string;
  /** Architecture target: "gfx942", "Hopper". */
  arch: string;
  /** PCI address with a 4-digit domain, lowercase: "0000:0c:00.0". */
  pciBusId: string;
  /** Stable identity: AMD "GPU-<16 hex digits of KFD unique_id>", NVIDIA "GPU-<uuid>". */
  uniqueId: string;
  /** Device files specific to this GPU (render node and card for AMD, /dev/nvidiaN for NVIDIA). */
  deviceNodes: DeviceNodeRef[];
  /** AMD DRM render minor (128+), NVIDIA device minor; -1 when unknown. */
  minor: number;
  /** DRM card number (/dev/dri/cardN), -1 when unknown. */
  cardIndex: number;
  /** Host NUMA node the GPU hangs off, -1 when unknown. */
  numaNode: number;
  /** CPUs local to the GPU as a list expression ("0-55,112-167"), "" when unknown. */
  cpuAffinity: string;
  memoryMiB: number;
  /** XGMI hive id (AMD), "" when not in a hive. */
  hiveId: string;
  partition: GpuPartition;
}

export interface DeviceInventory {
  gpus: GpuDevice[];
  links: LinkMatrix;
  /** Device files every GPU job of that vendor needs (/dev/kfd, /dev/nvidiactl, ...). */
  sharedDeviceNodes: Record<GpuVendor, DeviceNodeRef[]>;
  /** Things discovery noticed but could not reconcile; printed by `spurd --discover`. */
  warnings: string[];
}

/** One schedulable unit: a whole GPU, or one MIG instance when the GPU is partitioned with MIG. */
export interface GpuUnit {
  /** "0" for a whole GPU, "0:1" for MIG instance 1 of GPU 0 (the CDI device name too). */
  name: string;
  gpuIndex: number;
  instanceIndex: number;
  vendor: GpuVendor;
  /** gres type: the GPU's, or the MIG profile ("3g.40gb"). */
  type: string;
  uuid: string;
  memoryMiB: number;
}

export function emptyMatrix(size: number): LinkMatrix {
  return { size, links: Array.from({ length: size }, () => Array.from({ length: size }, () => undefined)) };
}

export function emptyInventory(): DeviceInventory {
  return { gpus: [], links: emptyMatrix(0), sharedDeviceNodes: { amd: [], nvidia: [] }, warnings: [] };
}

/** A fresh "not partitioned" value (fresh so that no two GPUs share one mutable object). */
export function noPartition(): GpuPartition {
  return { mode: "none", memoryMode: "", instances: [] };
}

/** The schedulable units of an inventory: MIG instances replace their parent GPU when MIG is on. */
export function gpuUnits(inventory: DeviceInventory): GpuUnit[] {
  const units: GpuUnit[] = [];
  for (const gpu of inventory.gpus) {
    if (gpu.partition.mode === "mig") {
      for (const mig of gpu.partition.instances) {
        units.push({
          name: `${gpu.index}:${mig.index}`, gpuIndex: gpu.index, instanceIndex: mig.index, vendor: gpu.vendor,
          type: mig.profile === "" ? gpu.gresType : mig.profile, uuid: mig.uuid, memoryMiB: mig.memoryMiB,
        });
      }
      continue;
    }
    units.push({
      name: String(gpu.index), gpuIndex: gpu.index, instanceIndex: -1, vendor: gpu.vendor,
      type: gpu.gresType, uuid: gpu.uniqueId, memoryMiB: gpu.memoryMiB,
    });
  }
  return units;
}
