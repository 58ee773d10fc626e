/**
 * @module devices/parse-kfd
 * Pure parsers for the AMD KFD topology in sysfs (/sys/class/kfd/kfd/topology/nodes/N):
 * `properties` and `io_links/M/properties` are "name value" lines, one per line,
 * values decimal (64-bit ids kept as strings). CPU nodes have simd_count 0.
 */
import { err, ok, type Result } from "../lib/result.ts";
import { assert } from "../lib/assert.ts";

/** KFD io_link `type` values (CRAT io interface types) that matter for GPU placement. */
export const KFD_LINK_HYPERTRANSPORT = 1;
export const KFD_LINK_PCIE = 2;
export const KFD_LINK_QPI = 5;
export const KFD_LINK_XGMI = 11;
/** The kernel's XGMI weight per hop (weight = 15 * hops). */
export const KFD_XGMI_WEIGHT_PER_HOP = 15;

export interface KfdIoLink {
  type: number;
  nodeFrom: number;
  nodeTo: number;
  weight: number;
  minBandwidthMBps: number;
  maxBandwidthMBps: number;
  flags: number;
}

export interface KfdNode {
  id: number;
  isGpu: boolean;
  cpuCoresCount: number;
  simdCount: number;
  /** e.g. 90402 (gfx942); 0 for CPU nodes. */
  gfxTargetVersion: number;
  vendorId: number;
  deviceId: number;
  /** "0000:0c:00.0" from domain + location_id; "" for CPU nodes. */
  pciBusId: string;
  /** DRM render minor (/dev/dri/renderD<minor>); -1 for CPU nodes. */
  renderMinor: number;
  /** Decimal 64-bit values as printed ("0" when absent). */
  uniqueId: string;
  hiveId: string;
  /** VRAM in bytes: public/private frame-buffer banks, else local_mem_size. */
  memoryBytes: number;
  numXcc: number;
  ioLinks: KfdIoLink[];
}

/** Raw text of one topology node as the reader found it. */
export interface KfdNodeText {
  id: number;
  properties: string;
  /** Contents of `gpu_id` ("0" for CPU nodes); undefined when the file was absent. */
  gpuId?: string;
  ioLinks: string[];
  memBanks: string[];
}

/** "name value" lines into a map; malformed lines are skipped (sysfs never writes them). */
export function parseKfdProperties(text: string): Map<string, string> {
  const props = new Map<string, string>();
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    const space = trimmed.search(/\s/);
    if (space <= 0) continue;
    props.set(trimmed.slice(0, space), trimmed.slice(space).trim());
  }
  return props;
}

function intProp(props: Map<string, string>, key: string, fallback: number): number {
  const raw = props.get(key);
  if (raw === undefined || !/^-?\d+$/.test(raw)) return fallback;
  return Number(raw);
}

function idProp(props: Map<string, string>, key: string): string {
  const raw = props.get(key);
  return raw !== undefined && /^\d+$/.test(raw) ? raw : "0";
}

export function parseKfdIoLink(text: string): Result<KfdIoLink> {
  const props = parseKfdProperties(text);
  for (const key of ["type", "node_from", "node_to", "weight"]) {
    if (!/^\d+$/.test(props.get(key) ?? "")) return err("BadKfdTopology", `io_link properties lack ${key}`);
  }
  return ok({
    type: intProp(props, "type", 0),
    nodeFrom: intProp(props, "node_from", -1),
    nodeTo: intProp(props, "node_to", -1),
    weight: intProp(props, "weight", 0),
    minBandwidthMBps: intProp(props, "min_bandwidth", 0),
    maxBandwidthMBps: intProp(props, "max_bandwidth", 0),
    flags: intProp(props, "flags", 0),
  });
}

/** PCI address from KFD's domain and location_id (bus << 8 | device << 3 | function). */
export function kfdPciBusId(domain: number, locationId: number): string {
  assert(domain >= 0 && locationId >= 0, "PCI domain and location are non-negative");
  const bus = (locationId >> 8) & 0xff;
  const device = (locationId >> 3) & 0x1f;
  const fn = locationId & 0x7;
  const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");
  return `${hex(domain, 4)}:${hex(bus, 2)}:${hex(device, 2)}.${fn}`;
}

/** gfx_target_version (major*10000 + minor*100 + stepping) to the LLVM target name: 90402 → gfx942, 90010 → gfx90a. */
export function gfxTargetName(version: number): string {
  if (version <= 0) return "";
  const major = Math.floor(version / 10000);
  const minor = Math.floor(version / 100) % 100;
  const stepping = version % 100;
  return `gfx${major}${minor.toString(16)}${stepping.toString(16)}`;
}

/** ROCm's GPU UUID: "GPU-" and the 64-bit KFD unique_id as 16 hex digits. */
export function amdGpuUuid(uniqueIdDecimal: string): string {
  if (!/^\d+$/.test(uniqueIdDecimal) || uniqueIdDecimal === "0") return "";
  return `GPU-${BigInt(uniqueIdDecimal).toString(16).padStart(16, "0")}`;
}

function sumFrameBufferBytes(memBanks: string[]): number {
  let total = 0;
  for (const text of memBanks) {
    const bank = parseKfdProperties(text);
    const heap = intProp(bank, "heap_type", 0);
    // heap_type 1 = frame buffer public, 2 = frame buffer private; 0 is system memory.
    if (heap === 1 || heap === 2) total += intProp(bank, "size_in_bytes", 0);
  }
  return total;
}

/** One topology node from its raw files. GPU nodes must carry the identity fields. */
export function parseKfdNode(node: KfdNodeText): Result<KfdNode> {
  const props = parseKfdProperties(node.properties);
  if (props.size === 0) return err("BadKfdTopology", `KFD node ${node.id}: empty properties`);
  const simdCount = intProp(props, "simd_count", 0);
  const gpuIdZero = node.gpuId !== undefined && node.gpuId.trim() === "0";
  const isGpu = simdCount > 0 && !gpuIdZero;
  const links: KfdIoLink[] = [];
  for (const text of node.ioLinks) {
    const link = parseKfdIoLink(text);
    if (!link.ok) return err(link.error.code, `KFD node ${node.id}: ${link.error.message}`);
    links.push(link.value);
  }
  if (isGpu) {
    for (const key of ["location_id", "domain", "drm_render_minor", "device_id"]) {
      if (!props.has(key)) return err("BadKfdTopology", `KFD node ${node.id}: GPU properties lack ${key}`);
    }
  }
  const bankBytes = sumFrameBufferBytes(node.memBanks);
  return ok({
    id: node.id,
    isGpu,
    cpuCoresCount: intProp(props, "cpu_cores_count", 0),
    simdCount,
    gfxTargetVersion: intProp(props, "gfx_target_version", 0),
    vendorId: intProp(props, "vendor_id", 0),
    deviceId: intProp(props, "device_id", 0),
    pciBusId: isGpu ? kfdPciBusId(intProp(props, "domain", 0), intProp(props, "location_id", 0)) : "",
    renderMinor: isGpu ? intProp(props, "drm_render_minor", -1) : -1,
    uniqueId: idProp(props, "unique_id"),
    hiveId: idProp(props, "hive_id"),
    memoryBytes: bankBytes > 0 ? bankBytes : intProp(props, "local_mem_size", 0),
    numXcc: intProp(props, "num_xcc", 0),
    ioLinks: links,
  });
}

/** Parses every node; node ids must be unique. Sorted by id (KFD order = ROCm device order). */
export function parseKfdTopology(nodes: KfdNodeText[]): Result<KfdNode[]> {
  const parsed: KfdNode[] = [];
  for (const text of [...nodes].sort((a, b) => a.id - b.id)) {
    const node = parseKfdNode(text);
    if (!node.ok) return node;
    if (parsed.length > 0 && parsed[parsed.length - 1]!.id === node.value.id) {
      return err("BadKfdTopology", `KFD node ${node.value.id} appears twice`);
    }
    parsed.push(node.value);
  }
  return ok(parsed);
}

interface AmdModelRow {
  deviceId: number;
  /** SIMD count that tells two products on one device id apart; 0 = any. */
  simdCount: number;
  model: string;
}

/** PCI device id → product, table-driven; GCD-level products (MI250X) count per die. */
const AMD_MODELS: AmdModelRow[] = [
  { deviceId: 0x74a1, simdCount: 0, model: "MI300X" },
  { deviceId: 0x74b5, simdCount: 0, model: "MI300X" }, // virtual function
  { deviceId: 0x74a5, simdCount: 0, model: "MI325X" },
  { deviceId: 0x74a0, simdCount: 0, model: "MI300A" },
  { deviceId: 0x740c, simdCount: 440, model: "MI250X" }, // 110 CUs per GCD
  { deviceId: 0x740c, simdCount: 0, model: "MI250" }, // 104 CUs per GCD
  { deviceId: 0x740f, simdCount: 0, model: "MI210" },
  { deviceId: 0x738c, simdCount: 0, model: "MI100" },
];

/** Model name for a KFD GPU node; unknown ids read as the target and PCI id ("gfx942 (1002:74ff)"). */
export function amdModelName(node: KfdNode): string {
  for (const row of AMD_MODELS) {
    if (row.deviceId !== node.deviceId) continue;
    if (row.simdCount !== 0 && row.simdCount !== node.simdCount) continue;
    return row.model;
  }
  return `${gfxTargetName(node.gfxTargetVersion)} (1002:${node.deviceId.toString(16).padStart(4, "0")})`;
}
