/**
 * @module devices/read-sysfs
 * The only file in src/devices that touches the file system: reads the raw text
 * of KFD topology nodes, DRM cards/render nodes, display-class PCI devices and two
 * /proc files under a root directory ("/" on a host, a fixture tree in tests).
 * Missing files read as absent; nothing is interpreted here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { DrmEntryText } from "./parse-drm.ts";
import type { KfdNodeText } from "./parse-kfd.ts";
import type { PciDeviceText, SysfsSnapshot } from "./sysfs-snapshot.ts";
import type { OsCpu } from "./cpu-topology.ts";

export type { PciDeviceText, SysfsSnapshot } from "./sysfs-snapshot.ts";

/** Directory entries read per directory at most; sysfs GPU trees are far smaller. */
const ENTRIES_MAX = 4096;
/** Bytes kept per file; sysfs attributes are at most a page. */
const FILE_BYTES_MAX = 1 << 20;

function readText(path: string): string | undefined {
  try {
    const text = readFileSync(path, "utf8");
    return text.length > FILE_BYTES_MAX ? text.slice(0, FILE_BYTES_MAX) : text;
  } catch {
    return undefined;
  }
}

function listDir(path: string): string[] {
  try {
    return readdirSync(path).sort().slice(0, ENTRIES_MAX);
  } catch {
    return [];
  }
}

function numericEntries(path: string): number[] {
  return listDir(path).filter((n) => /^\d+$/.test(n)).map(Number).sort((a, b) => a - b);
}

function readKfdNodes(root: string): KfdNodeText[] {
  const base = join(root, "sys/class/kfd/kfd/topology/nodes");
  const nodes: KfdNodeText[] = [];
  for (const id of numericEntries(base)) {
    const dir = join(base, String(id));
    const properties = readText(join(dir, "properties"));
    if (properties === undefined) continue;
    const node: KfdNodeText = {
      id,
      properties,
      ioLinks: numericEntries(join(dir, "io_links")).flatMap((l) => readText(join(dir, "io_links", String(l), "properties")) ?? []),
      memBanks: numericEntries(join(dir, "mem_banks")).flatMap((b) => readText(join(dir, "mem_banks", String(b), "properties")) ?? []),
    };
    const gpuId = readText(join(dir, "gpu_id"));
    if (gpuId !== undefined) node.gpuId = gpuId;
    nodes.push(node);
  }
  return nodes;
}

function readDrm(root: string): DrmEntryText[] {
  const base = join(root, "sys/class/drm");
  const entries: DrmEntryText[] = [];
  for (const name of listDir(base).filter((n) => /^(card|renderD)\d+$/.test(n))) {
    const dir = join(base, name);
    const entry: DrmEntryText = { name };
    const files: [keyof DrmEntryText, string][] = [
      ["dev", "dev"], ["uevent", "device/uevent"], ["vendor", "device/vendor"], ["device", "device/device"],
      ["numaNode", "device/numa_node"], ["computePartition", "device/current_compute_partition"],
      ["memoryPartition", "device/current_memory_partition"],
    ];
    for (const [key, rel] of files) {
      const text = readText(join(dir, rel));
      if (text !== undefined) entry[key] = text;
    }
    entries.push(entry);
  }
  return entries;
}

function readPciDisplay(root: string): PciDeviceText[] {
  const base = join(root, "sys/bus/pci/devices");
  const devices: PciDeviceText[] = [];
  for (const slot of listDir(base)) {
    const dir = join(base, slot);
    const pciClass = readText(join(dir, "class"));
    if (pciClass === undefined || !/^0x03/i.test(pciClass.trim())) continue;
    const dev: PciDeviceText = { slot, pciClass };
    const vendor = readText(join(dir, "vendor"));
    const device = readText(join(dir, "device"));
    const numaNode = readText(join(dir, "numa_node"));
    const localCpuList = readText(join(dir, "local_cpulist"));
    if (vendor !== undefined) dev.vendor = vendor;
    if (device !== undefined) dev.device = device;
    if (numaNode !== undefined) dev.numaNode = numaNode;
    if (localCpuList !== undefined) dev.localCpuList = localCpuList;
    devices.push(dev);
  }
  return devices;
}

/** Reads the GPU-relevant parts of sysfs and /proc below `root` (default "/"). Never throws. */
export function readSysfs(root = "/"): SysfsSnapshot {
  const snapshot: SysfsSnapshot = { kfdNodes: readKfdNodes(root), drm: readDrm(root), pciDisplay: readPciDisplay(root) };
  const procDevices = readText(join(root, "proc/devices"));
  const migMinors = readText(join(root, "proc/driver/nvidia-caps/mig-minors"));
  if (procDevices !== undefined) snapshot.procDevices = procDevices;
  if (migMinors !== undefined) snapshot.migMinors = migMinors;
  return snapshot;
}

/** Package and core id of every OS CPU under `root` (/sys/devices/system/cpu/cpuN/topology); [] when unreadable. */
export function readOsCpus(root = "/"): OsCpu[] {
  const base = join(root, "sys/devices/system/cpu");
  const out: OsCpu[] = [];
  for (const name of listDir(base)) {
    const m = /^cpu(\d+)$/.exec(name);
    if (m === null) continue;
    const pkg = (readText(join(base, name, "topology/physical_package_id")) ?? "").trim();
    const core = (readText(join(base, name, "topology/core_id")) ?? "").trim();
    if (!/^-?\d+$/.test(pkg) || !/^\d+$/.test(core)) continue;
    out.push({ cpu: Number(m[1]), packageId: Number(pkg), coreId: Number(core) });
  }
  return out.sort((a, b) => a.cpu - b.cpu);
}
