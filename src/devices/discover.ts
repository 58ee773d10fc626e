/**
 * @module devices/discover
 * One node's DeviceInventory: AMD GPUs from sysfs (KFD + DRM), NVIDIA GPUs from
 * nvidia-smi output, combined. `inventoryFromSnapshot` is pure (tests feed fixture
 * text); `discoverDevices` reads a root directory first. Nothing here spawns.
 */
import { ok, type Result } from "../lib/result.ts";
import { assert } from "../lib/assert.ts";
import { emptyMatrix, type DeviceInventory, type GpuDevice, type LinkMatrix } from "./inventory.ts";
import { discoverAmd } from "./discover-amd.ts";
import { discoverNvidia } from "./discover-nvidia.ts";
import { readSysfs } from "./read-sysfs.ts";
import type { NvidiaSmiTexts } from "./run-nvidia-smi.ts";
import type { SysfsSnapshot } from "./sysfs-snapshot.ts";

export type { NvidiaSmiTexts } from "./run-nvidia-smi.ts";

/** Places each vendor's matrix on the diagonal; GPUs of different vendors see each other as SYS. */
function combineLinks(parts: { gpus: GpuDevice[]; links: LinkMatrix }[]): LinkMatrix {
  const size = parts.reduce((n, p) => n + p.gpus.length, 0);
  const matrix = emptyMatrix(size);
  let offset = 0;
  for (const part of parts) {
    for (let a = 0; a < part.gpus.length; a++) {
      for (let b = 0; b < size; b++) {
        const local = b - offset;
        const inside = local >= 0 && local < part.gpus.length;
        if (b === a + offset) continue;
        matrix.links[a + offset]![b] = inside
          ? part.links.links[a]?.[local]
          : { type: "SYS", weight: 0, hops: 0, bandwidthClass: 0, bandwidthMBps: 0, code: "SYS" };
      }
    }
    offset += part.gpus.length;
  }
  return matrix;
}

/**
 * Inventory from already-read text. GPU `index` stays the vendor runtime's ordinal;
 * the link matrix follows `gpus` order (AMD first), which is the same on single-vendor nodes.
 */
export function inventoryFromSnapshot(snapshot: SysfsSnapshot, nvidia?: NvidiaSmiTexts): Result<DeviceInventory> {
  const amd = discoverAmd(snapshot);
  if (!amd.ok) return amd;
  const nv = discoverNvidia(snapshot, nvidia);
  if (!nv.ok) return nv;
  const gpus = [...amd.value.gpus, ...nv.value.gpus];
  const warnings = [...amd.value.warnings, ...nv.value.warnings];
  if (amd.value.gpus.length > 0 && nv.value.gpus.length > 0) {
    warnings.push("AMD and NVIDIA GPUs on one node: indices restart per vendor; the link matrix follows the listed order");
  }
  const links = nv.value.gpus.length === 0 ? amd.value.links : amd.value.gpus.length === 0 ? nv.value.links : combineLinks([amd.value, nv.value]);
  assert(links.size === gpus.length, "the link matrix covers every GPU");
  return ok({ gpus, links, sharedDeviceNodes: { amd: amd.value.shared, nvidia: nv.value.shared }, warnings });
}

/** Reads sysfs under `root` (default "/") and combines it with nvidia-smi output when the caller ran it. */
export function discoverDevices(root = "/", nvidia?: NvidiaSmiTexts): Result<DeviceInventory> {
  return inventoryFromSnapshot(readSysfs(root), nvidia);
}
