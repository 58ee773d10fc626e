/**
 * @module devices/format-discover
 * What `spurd --discover` prints: a table of GPUs (and MIG instances), the link
 * matrix in nvidia-smi-like codes, shared device files, a suggested Gres= value
 * and warnings; or the whole inventory as JSON with `--json`. Pure text.
 */
import { gpuUnits, type DeviceInventory, type GpuDevice } from "./inventory.ts";

const HEADER = ["GPU", "VENDOR", "MODEL", "ARCH", "PCI BUS ID", "NUMA", "CPUS", "MEMORY", "DEVICES", "UNIQUE ID", "PARTITION"];

export const LINK_LEGEND = [
  "  X      = Self",
  "  NV#    = # bonded NVLinks",
  "  XGMI   = one direct XGMI link;  XGMIxN = N direct XGMI links;  XGMI-N = N XGMI hops",
  "  PIX    = at most one PCIe bridge;  PXB = several PCIe bridges",
  "  PHB    = through a PCIe host bridge (the CPU);  NODE = between host bridges of one NUMA node",
  "  SYS    = across NUMA nodes (socket interconnect)",
];

/** Rows padded to their column widths, two spaces apart, trailing blanks trimmed. */
export function alignColumns(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ").trimEnd());
}

function partitionText(gpu: GpuDevice): string {
  const p = gpu.partition;
  if (p.mode === "none") return "-";
  if (p.mode === "mig") return `MIG (${p.instances.length} instances)`;
  return p.memoryMode === "" ? p.mode : `${p.mode}/${p.memoryMode}`;
}

function gpuRows(inventory: DeviceInventory): string[][] {
  const rows: string[][] = [HEADER];
  for (const gpu of inventory.gpus) {
    rows.push([
      String(gpu.index), gpu.vendor, gpu.model, gpu.arch || "-", gpu.pciBusId, gpu.numaNode < 0 ? "-" : String(gpu.numaNode),
      gpu.cpuAffinity || "-", `${gpu.memoryMiB} MiB`, gpu.deviceNodes.map((d) => d.path).join(",") || "-", gpu.uniqueId || "-", partitionText(gpu),
    ]);
    for (const mig of gpu.partition.mode === "mig" ? gpu.partition.instances : []) {
      rows.push([
        `${gpu.index}:${mig.index}`, "", `MIG ${mig.profile || "?"}`, `${mig.multiprocessors} SM`, "", "", "", `${mig.memoryMiB} MiB`,
        mig.deviceNodes.map((d) => d.path).join(",") || "-", mig.uuid || "-", `gi ${mig.gpuInstanceId} ci ${mig.computeInstanceId}`,
      ]);
    }
  }
  return rows;
}

/** The link matrix as codes, GPUn headers like `nvidia-smi topo -m`. */
export function formatLinkMatrix(inventory: DeviceInventory): string[] {
  const n = inventory.links.size;
  const names = inventory.gpus.map((g) => `GPU${g.index}`);
  const rows: string[][] = [["", ...names]];
  for (let a = 0; a < n; a++) {
    rows.push([names[a] ?? `GPU${a}`, ...Array.from({ length: n }, (_, b) => (a === b ? "X" : (inventory.links.links[a]?.[b]?.code ?? "?")))]);
  }
  return alignColumns(rows);
}

/** slurm.conf-style Gres value for what was found: "gpu:mi300x:8", MIG profiles counted separately. */
export function suggestedGres(inventory: DeviceInventory): string {
  const counts = new Map<string, number>();
  for (const unit of gpuUnits(inventory)) counts.set(unit.type, (counts.get(unit.type) ?? 0) + 1);
  return [...counts].map(([type, count]) => `gpu:${type}:${count}`).join(",");
}

/** Human-readable report; ends with a newline. */
export function formatDiscover(inventory: DeviceInventory): string {
  if (inventory.gpus.length === 0) {
    return ["No GPUs found.", ...inventory.warnings.map((w) => `warning: ${w}`)].join("\n") + "\n";
  }
  const lines = [...alignColumns(gpuRows(inventory)), "", "Links:", ...formatLinkMatrix(inventory), "", "Legend:", ...LINK_LEGEND, ""];
  for (const vendor of ["amd", "nvidia"] as const) {
    const shared = inventory.sharedDeviceNodes[vendor];
    if (shared.length > 0) lines.push(`Shared device files (${vendor}): ${shared.map((d) => d.path).join(" ")}`);
  }
  lines.push(`Suggested: Gres=${suggestedGres(inventory)}`);
  for (const w of inventory.warnings) lines.push(`warning: ${w}`);
  return lines.join("\n") + "\n";
}

/** `--json`: the inventory itself plus the suggested Gres, two-space indent. */
export function formatDiscoverJson(inventory: DeviceInventory): string {
  return `${JSON.stringify({ ...inventory, gres: suggestedGres(inventory) }, null, 2)}\n`;
}
