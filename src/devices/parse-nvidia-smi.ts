/**
 * @module devices/parse-nvidia-smi
 * Pure parsers for `nvidia-smi -q -x` (XML: product, uuid, PCI bus id, minor
 * number, frame-buffer memory, MIG mode and MIG devices) and `nvidia-smi -L`
 * (text: the only place MIG UUIDs and profile names reliably appear).
 */
import { err, ok, type Result } from "../lib/result.ts";
import { assert } from "../lib/assert.ts";
import { normalizePciBusId } from "./parse-drm.ts";
import { parseXml, xmlChild, xmlChildren, xmlText, type XmlElement } from "./xml-lite.ts";

export interface NvidiaSmiMig {
  index: number;
  gpuInstanceId: number;
  computeInstanceId: number;
  memoryMiB: number;
  multiprocessors: number;
  /** Present only on drivers that print it; -L is the usual source. */
  uuid: string;
}

export interface NvidiaSmiGpu {
  /** Position in the document: nvidia-smi's GPU index. */
  index: number;
  pciBusId: string;
  productName: string;
  architecture: string;
  uuid: string;
  /** /dev/nvidia<minor>; -1 when the driver printed N/A. */
  minorNumber: number;
  memoryMiB: number;
  /** current_mig: "Enabled", "Disabled" or "N/A" (not MIG-capable). */
  migMode: string;
  migDevices: NvidiaSmiMig[];
  /** platformInfo/module_id on HGX/DGX boards, -1 otherwise. */
  moduleId: number;
}

export interface NvidiaSmiLog {
  driverVersion: string;
  cudaVersion: string;
  gpus: NvidiaSmiGpu[];
}

/** "81559 MiB" → 81559; "N/A" and the like → 0. */
export function parseMiB(text: string | undefined): number {
  const m = /^(\d+)\s*MiB$/.exec((text ?? "").trim());
  return m === null ? 0 : Number(m[1]);
}

function intOr(text: string | undefined, fallback: number): number {
  const t = (text ?? "").trim();
  return /^\d+$/.test(t) ? Number(t) : fallback;
}

function parseMig(el: XmlElement): NvidiaSmiMig {
  return {
    index: intOr(xmlText(el, "index"), 0),
    gpuInstanceId: intOr(xmlText(el, "gpu_instance_id"), -1),
    computeInstanceId: intOr(xmlText(el, "compute_instance_id"), -1),
    memoryMiB: parseMiB(xmlText(el, "fb_memory_usage/total")),
    multiprocessors: intOr(xmlText(el, "device_attributes/shared/multiprocessor_count"), 0),
    uuid: xmlText(el, "uuid") ?? "",
  };
}

function parseGpu(el: XmlElement, index: number): Result<NvidiaSmiGpu> {
  const busId = xmlText(el, "pci/pci_bus_id") ?? el.attributes["id"] ?? "";
  const uuid = xmlText(el, "uuid") ?? "";
  if (busId === "") return err("BadNvidiaSmi", `nvidia-smi GPU ${index}: no PCI bus id`);
  const migs = xmlChildren(xmlChild(el, "mig_devices"), "mig_device").map(parseMig);
  return ok({
    index,
    pciBusId: normalizePciBusId(busId),
    productName: xmlText(el, "product_name") ?? "",
    architecture: xmlText(el, "product_architecture") ?? "",
    uuid,
    minorNumber: intOr(xmlText(el, "minor_number"), -1),
    memoryMiB: parseMiB(xmlText(el, "fb_memory_usage/total")),
    migMode: xmlText(el, "mig_mode/current_mig") ?? "N/A",
    migDevices: migs.sort((a, b) => a.index - b.index),
    moduleId: intOr(xmlText(el, "platformInfo/module_id"), -1),
  });
}

export function parseNvidiaSmiXml(text: string): Result<NvidiaSmiLog> {
  const doc = parseXml(text);
  if (!doc.ok) return err(doc.error.code, `nvidia-smi -q -x: ${doc.error.message}`);
  if (doc.value.name !== "nvidia_smi_log") return err("BadNvidiaSmi", `nvidia-smi -q -x: root is <${doc.value.name}>`);
  const gpus: NvidiaSmiGpu[] = [];
  for (const el of xmlChildren(doc.value, "gpu")) {
    const gpu = parseGpu(el, gpus.length);
    if (!gpu.ok) return gpu;
    gpus.push(gpu.value);
  }
  const attached = intOr(xmlText(doc.value, "attached_gpus"), gpus.length);
  if (attached !== gpus.length) return err("BadNvidiaSmi", `nvidia-smi -q -x: attached_gpus ${attached} but ${gpus.length} <gpu> entries`);
  assert(gpus.every((g, i) => g.index === i), "GPU indices follow document order");
  return ok({ driverVersion: xmlText(doc.value, "driver_version") ?? "", cudaVersion: xmlText(doc.value, "cuda_version") ?? "", gpus });
}

export interface NvidiaSmiListMig {
  index: number;
  profile: string;
  uuid: string;
}

export interface NvidiaSmiListGpu {
  index: number;
  name: string;
  uuid: string;
  migs: NvidiaSmiListMig[];
}

/** `nvidia-smi -L`: "GPU 0: NAME (UUID: GPU-...)" lines, each followed by its "  MIG 3g.40gb Device 0: (UUID: MIG-...)" lines. */
export function parseNvidiaSmiList(text: string): NvidiaSmiListGpu[] {
  const gpus: NvidiaSmiListGpu[] = [];
  for (const line of text.split("\n")) {
    const gpu = /^GPU (\d+): (.*) \(UUID: (GPU-[0-9a-fA-F-]+)\)\s*$/.exec(line);
    if (gpu !== null) {
      gpus.push({ index: Number(gpu[1]), name: gpu[2]!.trim(), uuid: gpu[3]!, migs: [] });
      continue;
    }
    const mig = /^\s+MIG (\S+)\s+Device\s+(\d+): \(UUID: (MIG-[0-9a-fA-F-]+)\)\s*$/.exec(line);
    const parent = gpus[gpus.length - 1];
    if (mig !== null && parent !== undefined) parent.migs.push({ index: Number(mig[2]), profile: mig[1]!, uuid: mig[3]! });
  }
  return gpus;
}

/** Short gres type from a product name: "NVIDIA H100 80GB HBM3" → "h100", "NVIDIA A100-SXM4-80GB" → "a100". */
export function nvidiaGresType(productName: string): string {
  const words = productName.split(/[\s-]+/).filter((w) => w !== "" && !/^(nvidia|geforce|tesla|quadro)$/i.test(w));
  const first = words[0] ?? "";
  // "RTX A6000", "RTX 4090": the family word alone says nothing.
  const picked = /^rtx$/i.test(first) && words[1] !== undefined ? `${first}_${words[1]}` : first;
  return picked.toLowerCase().replace(/[^a-z0-9_.]/g, "");
}

/** Model as shown to people: the product name without the vendor prefix. */
export function nvidiaModelName(productName: string): string {
  return productName.replace(/^NVIDIA\s+/i, "").trim();
}
