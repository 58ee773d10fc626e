/**
 * @module devices/sysfs-snapshot
 * The raw text discovery reads from sysfs and /proc, as plain data: read-sysfs.ts
 * fills it from a directory tree, the pure discover functions parse it.
 */
import type { DrmEntryText } from "./parse-drm.ts";
import type { KfdNodeText } from "./parse-kfd.ts";

export interface PciDeviceText {
  slot: string;
  vendor?: string;
  device?: string;
  pciClass?: string;
  numaNode?: string;
  /** CPUs local to the device ("0-55,112-167"). */
  localCpuList?: string;
}

/** Everything discovery reads, as text. */
export interface SysfsSnapshot {
  kfdNodes: KfdNodeText[];
  drm: DrmEntryText[];
  /** PCI functions of class 0x03 (display/3D controllers) only. */
  pciDisplay: PciDeviceText[];
  procDevices?: string;
  migMinors?: string;
}
