/**
 * @module devices/parse-drm
 * Pure parsers for /sys/class/drm/{cardN,renderDN}: the `dev` file ("226:128"),
 * the PCI device's `uevent` (PCI_SLOT_NAME, DRIVER), vendor/device ids, numa_node
 * and, on MI300-class parts, the current compute/memory partition modes.
 */
import { assert } from "../lib/assert.ts";

/** Raw files of one DRM entry as the reader found them (absent files are undefined). */
export interface DrmEntryText {
  name: string;
  dev?: string;
  uevent?: string;
  vendor?: string;
  device?: string;
  numaNode?: string;
  computePartition?: string;
  memoryPartition?: string;
}

export interface DrmEntry {
  name: string;
  kind: "card" | "render";
  /** N in cardN / renderDN. */
  number: number;
  /** From `dev`; DRM's char major is 226. -1 when unknown. */
  major: number;
  minor: number;
  /** "0000:0c:00.0" lowercase, "" when the uevent lacks it. */
  pciSlot: string;
  driver: string;
  vendorId: number;
  deviceId: number;
  /** -1 when the platform has no NUMA information (sysfs prints -1 too). */
  numaNode: number;
  computePartition: string;
  memoryPartition: string;
}

export const DRM_MAJOR = 226;

/** KEY=VALUE lines of a sysfs uevent file. */
export function parseUevent(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    map.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  return map;
}

/** "226:128" → [226, 128]; undefined when malformed. */
export function parseDevNumbers(text: string | undefined): [number, number] | undefined {
  const m = /^\s*(\d+):(\d+)\s*$/.exec(text ?? "");
  if (m === null) return undefined;
  return [Number(m[1]), Number(m[2])];
}

function parseHexId(text: string | undefined): number {
  const t = (text ?? "").trim();
  return /^0x[0-9a-f]+$/i.test(t) ? Number.parseInt(t.slice(2), 16) : 0;
}

function parseIntOr(text: string | undefined, fallback: number): number {
  const t = (text ?? "").trim();
  return /^-?\d+$/.test(t) ? Number(t) : fallback;
}

/** Normalises a PCI address to "dddd:bb:dd.f" lowercase; accepts nvidia-smi's 8-digit domain. */
export function normalizePciBusId(text: string): string {
  const m = /^(?:([0-9a-f]{1,8}):)?([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/i.exec(text.trim());
  if (m === null) return text.trim().toLowerCase();
  const domain = Number.parseInt(m[1] ?? "0", 16).toString(16).padStart(4, "0");
  return `${domain}:${m[2]!.toLowerCase()}:${m[3]!.toLowerCase()}.${m[4]}`;
}

/** One DRM entry; undefined for names that are not cardN/renderDN (connectors like card0-DP-1, version). */
export function parseDrmEntry(text: DrmEntryText): DrmEntry | undefined {
  const m = /^(card|renderD)(\d+)$/.exec(text.name);
  if (m === null) return undefined;
  const uevent = parseUevent(text.uevent ?? "");
  const numbers = parseDevNumbers(text.dev);
  const slot = uevent.get("PCI_SLOT_NAME");
  const pciId = (uevent.get("PCI_ID") ?? "").split(":");
  const entry: DrmEntry = {
    name: text.name,
    kind: m[1] === "card" ? "card" : "render",
    number: Number(m[2]),
    major: numbers?.[0] ?? -1,
    minor: numbers?.[1] ?? -1,
    pciSlot: slot === undefined ? "" : normalizePciBusId(slot),
    driver: uevent.get("DRIVER") ?? "",
    vendorId: text.vendor !== undefined ? parseHexId(text.vendor) : parseHexId(`0x${pciId[0] ?? ""}`),
    deviceId: text.device !== undefined ? parseHexId(text.device) : parseHexId(`0x${pciId[1] ?? ""}`),
    numaNode: parseIntOr(text.numaNode, -1),
    computePartition: (text.computePartition ?? "").trim(),
    memoryPartition: (text.memoryPartition ?? "").trim(),
  };
  assert(entry.number >= 0, "DRM entry number is non-negative");
  return entry;
}

/** All parseable entries, cards first then render nodes, each by number. */
export function parseDrmEntries(texts: DrmEntryText[]): DrmEntry[] {
  const entries: DrmEntry[] = [];
  for (const t of texts) {
    const e = parseDrmEntry(t);
    if (e !== undefined) entries.push(e);
  }
  return entries.sort((a, b) => (a.kind === b.kind ? a.number - b.number : a.kind === "card" ? -1 : 1));
}

/** The DRM entry of a kind for a PCI address (GPUs have exactly one card and at most one render node). */
export function drmForPci(entries: DrmEntry[], kind: DrmEntry["kind"], pciBusId: string): DrmEntry | undefined {
  return entries.find((e) => e.kind === kind && e.pciSlot === pciBusId);
}
